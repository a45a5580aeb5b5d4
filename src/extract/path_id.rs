//! The id of the record a request's path names: `PathId<Ticket>` for `/api/tickets/{id}`.
//!
//! One rule for every such route: an id that is not a UUID names nothing, so it is answered
//! exactly as an id of another workspace's or a deleted record is, 404 `not_found` naming the
//! kind of record (`ticket not found`). Ids then reveal nothing either way, and no handler
//! parses its own. The kind's name comes from the type, through [`Resource`].
//!
//! Like axum's own `Path`, it reads the route's parameters; unlike it, a refusal speaks our
//! error format (axum's `customize-path-rejection` example).

use std::marker::PhantomData;

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use uuid::Uuid;

use crate::error::Error;

/// A kind of record a path can name.
pub trait Resource {
    /// What a 404 calls it: `"{NAME} not found"`.
    const NAME: &'static str;
}

/// The UUID in the route's one path parameter, for a record of kind `R`. Handlers take it
/// apart where they take it: `PathId { id, .. }: PathId<Ticket>`.
#[derive(Debug)]
pub struct PathId<R> {
    pub id: Uuid,
    resource: PhantomData<fn() -> R>,
}

impl<R: Resource> PathId<R> {
    /// The id of `raw`, a path segment as the client sent it: 404 unless it is a UUID.
    pub fn parse(raw: &str) -> Result<Self, Error> {
        let id = raw.parse().map_err(|_| Error::NotFound(R::NAME))?;
        Ok(Self {
            id,
            resource: PhantomData,
        })
    }
}

impl<R, S> FromRequestParts<S> for PathId<R>
where
    R: Resource,
    S: Send + Sync,
{
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(raw)) => Self::parse(&raw),
            Err(rejection) => Err(path_rejection(rejection, R::NAME)),
        }
    }
}

/// A segment that does not decode to UTF-8 is no UUID either: 404. Anything else means the
/// route does not have exactly one parameter, which is our mistake, not the client's.
fn path_rejection(rejection: PathRejection, what: &'static str) -> Error {
    if let PathRejection::FailedToDeserializePathParams(failure) = &rejection
        && matches!(
            failure.kind(),
            axum::extract::path::ErrorKind::InvalidUtf8InPathParam { .. }
        )
    {
        return Error::NotFound(what);
    }
    Error::Internal(anyhow::Error::new(rejection).context("a route with a PathId needs one id"))
}

#[cfg(test)]
mod tests {
    use super::*;

    enum Thing {}

    impl Resource for Thing {
        const NAME: &'static str = "thing";
    }

    #[test]
    fn a_uuid_is_an_id_and_anything_else_names_nothing() {
        let id = Uuid::new_v4();
        assert_eq!(PathId::<Thing>::parse(&id.to_string()).unwrap().id, id);
        for raw in ["", "x", "not-a-uuid", "1", &format!("{id}x")] {
            assert!(
                matches!(PathId::<Thing>::parse(raw), Err(Error::NotFound("thing"))),
                "{raw}"
            );
        }
    }
}
