//! What the label routes accept, checked into what the handlers act on: one failed check
//! answers with every field in error.

use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use crate::error::{Error, FieldChecks, Result};
use crate::inbox::text;

pub const NAME_MAX_CHARS: usize = 50;
pub const DESCRIPTION_MAX_CHARS: usize = 200;
/// Labels on one conversation or contact, at most.
pub const PER_RECORD_MAX: usize = 20;

fn name(raw: &str) -> Result<String, String> {
    text::required(raw, NAME_MAX_CHARS)
}

/// `#rrggbb`, stored lower case.
fn color(raw: &str) -> Result<String, String> {
    let color = raw.trim().to_ascii_lowercase();
    let hex = color.strip_prefix('#').unwrap_or_default();
    if hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(color)
    } else {
        Err("must be a colour as #rrggbb".to_owned())
    }
}

/// Trimmed; empty clears it.
fn description(raw: &str) -> Result<Option<String>, String> {
    let trimmed = raw.trim();
    if trimmed.chars().count() > DESCRIPTION_MAX_CHARS {
        return Err(format!(
            "must be at most {DESCRIPTION_MAX_CHARS} characters"
        ));
    }
    Ok((!trimmed.is_empty()).then(|| trimmed.to_owned()))
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateLabel {
    /// 1 to 50 characters; unique in the workspace, in any case.
    #[schema(example = "Billing")]
    name: String,
    /// `#rrggbb`.
    #[schema(example = "#2563eb")]
    color: String,
    /// Up to 200 characters: when to use it.
    #[schema(example = "Invoices, refunds and payment failures")]
    description: Option<String>,
}

#[derive(Debug)]
pub struct NewLabel {
    pub name: String,
    pub color: String,
    pub description: Option<String>,
}

impl TryFrom<CreateLabel> for NewLabel {
    type Error = Error;

    fn try_from(request: CreateLabel) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let fields = (
            checks.check("name", name(&request.name)),
            checks.check("color", color(&request.color)),
            checks.check(
                "description",
                request.description.as_deref().map(description).transpose(),
            ),
        );
        match fields {
            (Some(name), Some(color), Some(description)) => Ok(Self {
                name,
                color,
                description: description.flatten(),
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LabelPatch {
    name: Option<String>,
    color: Option<String>,
    /// An empty description clears it.
    description: Option<String>,
}

/// What to change; `None` leaves a field as it is (`description: Some(None)` clears it).
#[derive(Debug)]
pub struct LabelChanges {
    pub name: Option<String>,
    pub color: Option<String>,
    pub description: Option<Option<String>>,
}

impl TryFrom<LabelPatch> for LabelChanges {
    type Error = Error;

    fn try_from(patch: LabelPatch) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let fields = (
            checks.check("name", patch.name.as_deref().map(name).transpose()),
            checks.check("color", patch.color.as_deref().map(color).transpose()),
            checks.check(
                "description",
                patch.description.as_deref().map(description).transpose(),
            ),
        );
        match fields {
            (Some(name), Some(color), Some(description)) => Ok(Self {
                name,
                color,
                description,
            }),
            _ => Err(checks.failed()),
        }
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetLabels {
    /// The labels from now on (replacing the set): at most 20 of the
    /// workspace's labels; `[]` takes every label off.
    pub label_ids: Vec<Uuid>,
}

/// The label ids, each once, in the order given; at most [`PER_RECORD_MAX`].
pub fn label_ids(request: SetLabels) -> Result<Vec<Uuid>> {
    let mut ids: Vec<Uuid> = Vec::with_capacity(request.label_ids.len());
    for id in request.label_ids {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    if ids.len() > PER_RECORD_MAX {
        return Err(Error::invalid_field(
            "labelIds",
            format!("at most {PER_RECORD_MAX} labels on a conversation or a contact"),
        ));
    }
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_are_hex_and_lower_case() {
        assert_eq!(color(" #2563EB ").unwrap(), "#2563eb");
        for bad in ["2563eb", "#2563e", "#2563ebff", "#zzzzzz", "blue", ""] {
            assert!(color(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_empty_description_clears_it() {
        assert_eq!(description("  ").unwrap(), None);
        assert_eq!(
            description(" Refunds ").unwrap().as_deref(),
            Some("Refunds")
        );
        assert!(description(&"x".repeat(201)).is_err());
    }

    #[test]
    fn label_ids_are_kept_once_and_capped() {
        let a = Uuid::new_v4();
        let ids = label_ids(SetLabels {
            label_ids: vec![a, a],
        })
        .unwrap();
        assert_eq!(ids, [a]);
        let many = (0..21).map(|_| Uuid::new_v4()).collect();
        assert!(label_ids(SetLabels { label_ids: many }).is_err());
    }
}
