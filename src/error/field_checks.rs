//! Checking a request field by field, so that one answer names every field in error.
//!
//! A request is turned into its domain type (`NewTicket::try_from(request)`) by checking
//! each field into a [`FieldChecks`]; if any check failed, the result is the one validation
//! problem listing them all, as `{"errors": {"subject": ["must not be empty"], ...}}`.

use crate::error::{Error, FieldErrors};

#[derive(Debug, Default)]
pub struct FieldChecks(FieldErrors);

impl FieldChecks {
    /// The checked value, or `None` with the message kept under `field`.
    pub fn check<T>(&mut self, field: &'static str, result: Result<T, String>) -> Option<T> {
        result.map_err(|message| self.add(field, message)).ok()
    }

    /// Keeps a problem with `field` found some other way.
    pub fn add(&mut self, field: &'static str, message: impl Into<String>) {
        self.0.entry(field).or_default().push(message.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The validation error naming every field whose check failed.
    pub fn failed(self) -> Error {
        Error::Validation(self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_failed_check_is_named() {
        let mut checks = FieldChecks::default();
        assert_eq!(checks.check("title", Ok::<_, String>(1)), Some(1));
        assert!(checks.is_empty());
        assert_eq!(
            checks.check::<u8>("body", Err("must not be empty".into())),
            None
        );
        checks.add("body", "must be at most 3 characters");
        checks.add("shortCode", "is taken");
        let Error::Validation(fields) = checks.failed() else {
            panic!("not a validation error");
        };
        assert_eq!(fields["body"].len(), 2);
        assert_eq!(fields.len(), 2);
    }
}
