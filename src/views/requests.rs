//! What the view routes accept, checked: a name, and filters the inbox knows.

use serde::Deserialize;
use utoipa::ToSchema;

use crate::conversations::filters::{FILTER_NAMES, InboxFilters};
use crate::error::{Error, FieldChecks, Result};
use crate::inbox::text;

pub const NAME_MAX_CHARS: usize = 50;

fn name(raw: &str) -> Result<String, String> {
    text::required(raw, NAME_MAX_CHARS)
}

/// An object of the inbox's filters, none other (a misspelt filter would silently select
/// everything).
fn filters(raw: serde_json::Value) -> Result<InboxFilters, String> {
    let serde_json::Value::Object(fields) = &raw else {
        return Err("must be an object of inbox filters".to_owned());
    };
    if let Some(unknown) = fields.keys().find(|k| !FILTER_NAMES.contains(&k.as_str())) {
        return Err(format!(
            "`{unknown}` is not an inbox filter (one of {})",
            FILTER_NAMES.join(", ")
        ));
    }
    serde_json::from_value(raw).map_err(|e| e.to_string())
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateView {
    /// 1 to 50 characters.
    #[schema(example = "Urgent email")]
    name: String,
    /// Shared with the workspace (Owners only); personal by default.
    #[serde(default)]
    shared: bool,
    /// The inbox's filters, as `GET /api/conversations` takes them.
    #[schema(value_type = InboxFilters)]
    filters: serde_json::Value,
}

#[derive(Debug)]
pub struct NewView {
    pub name: String,
    pub shared: bool,
    pub filters: InboxFilters,
}

impl TryFrom<CreateView> for NewView {
    type Error = Error;

    fn try_from(request: CreateView) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let fields = (
            checks.check("name", name(&request.name)),
            checks.check("filters", filters(request.filters)),
        );
        let (Some(name), Some(filters)) = fields else {
            return Err(checks.failed());
        };
        filters.check()?;
        Ok(Self {
            name,
            shared: request.shared,
            filters,
        })
    }
}

#[derive(Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewPatch {
    name: Option<String>,
    /// Share a personal view with the workspace, or take a shared one back as the caller's
    /// own (Owners).
    shared: Option<bool>,
    /// Replaces the filters (all of them).
    #[schema(value_type = Option<InboxFilters>)]
    filters: Option<serde_json::Value>,
    /// Its place in its list (smaller first).
    position: Option<i32>,
}

#[derive(Debug)]
pub struct ViewChanges {
    pub name: Option<String>,
    pub shared: Option<bool>,
    pub filters: Option<InboxFilters>,
    pub position: Option<i32>,
}

impl TryFrom<ViewPatch> for ViewChanges {
    type Error = Error;

    fn try_from(patch: ViewPatch) -> Result<Self> {
        let mut checks = FieldChecks::default();
        let fields = (
            checks.check("name", patch.name.as_deref().map(name).transpose()),
            checks.check("filters", patch.filters.map(filters).transpose()),
        );
        let (Some(name), Some(filters)) = fields else {
            return Err(checks.failed());
        };
        if let Some(filters) = &filters {
            filters.check()?;
        }
        Ok(Self {
            name,
            shared: patch.shared,
            filters,
            position: patch.position,
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn filters_are_the_inboxs_own() {
        let parsed = filters(json!({"status": "open", "assignee": "me"})).unwrap();
        assert_eq!(parsed.assignee.as_deref(), Some("me"));
        assert!(
            filters(json!({"stauts": "open"}))
                .unwrap_err()
                .contains("stauts")
        );
        assert!(filters(json!({"status": "closed"})).is_err());
        assert!(filters(json!(["status"])).is_err());
        assert_eq!(filters(json!({})).unwrap(), InboxFilters::default());
    }

    #[test]
    fn a_bad_range_is_refused() {
        let request = CreateView {
            name: "Old".into(),
            shared: false,
            filters: json!({"createdAfter": "2026-02-01T00:00:00Z",
                            "createdBefore": "2026-01-01T00:00:00Z"}),
        };
        assert!(NewView::try_from(request).is_err());
    }
}
