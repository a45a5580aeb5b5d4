//! Constraint violations named where they can happen.
//!
//! A unique or foreign-key constraint that a client can run into (an email or a short code
//! that is taken) is the client's conflict, not our bug. The statement that can violate it
//! says so, right after it runs: `.on_constraint("users_email_key", email_taken)`. A
//! violation nobody named stays a database error, a 500 that is logged, since it means a
//! check we rely on did not hold.

use crate::error::Error;

pub trait OnConstraint<T> {
    /// `error()` instead of the failure when the statement violated `constraint`; any other
    /// failure, or success, as it was. Chains: each call names one constraint.
    fn on_constraint(self, constraint: &str, error: impl FnOnce() -> Error) -> Result<T, Error>;
}

impl<T, E: Into<Error>> OnConstraint<T> for Result<T, E> {
    fn on_constraint(self, constraint: &str, error: impl FnOnce() -> Error) -> Result<T, Error> {
        self.map_err(|failure| match failure.into() {
            Error::Database(sqlx::Error::Database(violation))
                if violated(&*violation).is_some_and(|violated| names(violated, constraint)) =>
            {
                error()
            }
            other => other,
        })
    }
}

/// The constraint an integrity violation (SQLSTATE class 23) names: the error's field, else,
/// on Citus, which relays a worker node's violation without that field, the quoted name in
/// its message (`duplicate key value violates unique constraint "contacts_email_key_102013"`).
fn violated(violation: &dyn sqlx::error::DatabaseError) -> Option<&str> {
    if let Some(name) = violation.constraint() {
        return Some(name);
    }
    if !violation.code().is_some_and(|code| code.starts_with("23")) {
        return None;
    }
    let message = violation.message();
    let (_, rest) = message.split_once("constraint \"")?;
    rest.split_once('"').map(|(name, _)| name)
}

/// Whether the constraint a server reported is `constraint`: by its name, or on Citus, where
/// a workspace's table lives as a shard on a worker node, by the shard's copy of it, which
/// Citus names with the shard id appended (`contacts_email_key_102013`).
fn names(violated: &str, constraint: &str) -> bool {
    violated == constraint
        || violated.strip_prefix(constraint).is_some_and(|rest| {
            rest.strip_prefix('_')
                .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shards_copy_of_a_constraint_is_that_constraint() {
        assert!(names("contacts_email_key", "contacts_email_key"));
        assert!(names("contacts_email_key_102013", "contacts_email_key"));
        assert!(!names("contacts_email_key_extra", "contacts_email_key"));
        assert!(!names("contacts_email_key_", "contacts_email_key"));
        assert!(!names("contacts_email", "contacts_email_key"));
    }

    #[test]
    fn other_failures_pass_through() {
        let failed: Result<(), sqlx::Error> = Err(sqlx::Error::RowNotFound);
        let mapped = failed.on_constraint("users_email_key", || Error::conflict("x", "y"));
        assert!(matches!(
            mapped,
            Err(Error::Database(sqlx::Error::RowNotFound))
        ));
        let ok: Result<u8, sqlx::Error> = Ok(1);
        assert_eq!(
            ok.on_constraint("users_email_key", || Error::conflict("x", "y"))
                .ok(),
            Some(1)
        );
    }
}
