//! Branding: the workspace's name, colour, logo and greeting as visitors see them.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::agents::profile::web_url;
use crate::error::{Error, FieldChecks};

const NAME_MAX_CHARS: usize = 100;
const GREETING_MAX_CHARS: usize = 500;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct Branding {
    /// The name the widget shows (the workspace's name when absent).
    pub name: Option<String>,
    /// Accent colour, `#rrggbb`.
    #[schema(example = "#1f6feb")]
    pub color: Option<String>,
    pub logo_url: Option<String>,
    /// The widget's first line to a visitor.
    #[schema(example = "Hi! How can we help?")]
    pub widget_greeting: Option<String>,
}

/// Each field: absent leaves it, `null` clears it, a value sets it.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BrandingPatch {
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>)]
    name: Option<Option<String>>,
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>)]
    color: Option<Option<String>>,
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>)]
    logo_url: Option<Option<String>>,
    #[serde(default, with = "serde_with::rust::double_option")]
    #[schema(value_type = Option<String>)]
    widget_greeting: Option<Option<String>>,
}

impl BrandingPatch {
    /// Checks and normalises every value given; all problems at once.
    pub fn validate(self) -> Result<Self, Error> {
        let mut checks = FieldChecks::default();
        let mut check = |field: &'static str,
                         value: Option<Option<String>>,
                         rule: &dyn Fn(&str) -> Result<String, String>| {
            match value {
                Some(Some(v)) => checks.check(field, rule(&v)).map(Some),
                other => other,
            }
        };
        let patch = Self {
            name: check("branding.name", self.name, &|v| text(v, NAME_MAX_CHARS)),
            color: check("branding.color", self.color, &color),
            logo_url: check("branding.logoUrl", self.logo_url, &web_url),
            widget_greeting: check("branding.widgetGreeting", self.widget_greeting, &|v| {
                text(v, GREETING_MAX_CHARS)
            }),
        };
        if checks.is_empty() {
            Ok(patch)
        } else {
            Err(checks.failed())
        }
    }
}

impl Branding {
    pub fn apply(&mut self, patch: BrandingPatch) {
        let fields = [
            (&mut self.name, patch.name),
            (&mut self.color, patch.color),
            (&mut self.logo_url, patch.logo_url),
            (&mut self.widget_greeting, patch.widget_greeting),
        ];
        for (field, value) in fields {
            if let Some(value) = value {
                *field = value;
            }
        }
    }
}

fn text(value: &str, max: usize) -> Result<String, String> {
    let value = value.trim();
    if value.is_empty() || value.chars().count() > max {
        Err(format!("must be 1 to {max} characters (or null to clear)"))
    } else {
        Ok(value.to_owned())
    }
}

/// `#rrggbb`, stored lower case.
fn color(value: &str) -> Result<String, String> {
    let value = value.trim();
    let valid = value.len() == 7
        && value.starts_with('#')
        && value[1..].bytes().all(|b| b.is_ascii_hexdigit());
    if valid {
        Ok(value.to_ascii_lowercase())
    } else {
        Err("must be a colour like #1f6feb".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn patch(json: &str) -> Result<BrandingPatch, Error> {
        serde_json::from_str::<BrandingPatch>(json)
            .map_err(|e| Error::bad_request("x", e.to_string()))?
            .validate()
    }

    #[test]
    fn absent_null_and_value_mean_leave_clear_and_set() {
        let mut branding = Branding {
            name: Some("Acme".into()),
            color: Some("#000000".into()),
            ..Branding::default()
        };
        branding.apply(patch(r##"{"name": null, "widgetGreeting": " Hi! "}"##).unwrap());
        assert_eq!(branding.name, None);
        assert_eq!(branding.color.as_deref(), Some("#000000"));
        assert_eq!(branding.widget_greeting.as_deref(), Some("Hi!"));
    }

    #[test]
    fn every_invalid_field_is_reported() {
        let Err(Error::Validation(errors)) =
            patch(r##"{"color": "red", "logoUrl": "javascript:x", "name": ""}"##)
        else {
            panic!("expected a validation error");
        };
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(patch(r##"{"colour": "#ffffff"}"##).is_err());
        assert_eq!(
            patch(r##"{"color": "#1F6FEB"}"##).unwrap().color,
            Some(Some("#1f6feb".into()))
        );
    }
}
