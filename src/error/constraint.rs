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
                if violation.constraint() == Some(constraint) =>
            {
                error()
            }
            other => other,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
