//! Cursor pagination for lists that grow without bound (`?limit=&cursor=`, `nextCursor`).
//!
//! A page is the first `limit` rows after the last row of the previous page in the list's
//! order (keyset pagination), never an offset: rows inserted or moved while a client pages do
//! not shift what it has not read yet, and a page costs the same at row 10 and row 100,000.
//! The cursor is that last row's sort key, opaque to clients (base64url of its JSON).

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::IntoParams;
use uuid::Uuid;

use crate::error::{Error, Result};

pub const DEFAULT_LIMIT: u32 = 50;
pub const MAX_LIMIT: u32 = 200;

/// The sort key of a list ordered by a timestamp, ties broken by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeKey(
    #[serde(with = "time::serde::timestamp::microseconds")] pub OffsetDateTime,
    pub Uuid,
);

/// `?limit=&cursor=`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PageQuery {
    /// Rows per page: 1 to 200, default 50.
    #[param(minimum = 1, maximum = 200)]
    limit: Option<u32>,
    /// `nextCursor` of the previous page; absent for the first page.
    cursor: Option<String>,
}

/// A validated page request whose cursor decoded to a sort key `K`.
#[derive(Debug, Clone)]
pub struct Page<K> {
    pub limit: u32,
    pub after: Option<K>,
}

impl PageQuery {
    pub fn parse<K: DeserializeOwned>(self) -> Result<Page<K>> {
        let limit = self.limit.unwrap_or(DEFAULT_LIMIT);
        if !(1..=MAX_LIMIT).contains(&limit) {
            return Err(Error::invalid_field(
                "limit",
                format!("must be between 1 and {MAX_LIMIT}"),
            ));
        }
        let after = self.cursor.as_deref().map(decode).transpose()?;
        Ok(Page { limit, after })
    }
}

impl<K: Serialize> Page<K> {
    /// Rows to fetch: one more than the page, to learn whether another page follows.
    pub fn fetch(&self) -> i64 {
        i64::from(self.limit) + 1
    }

    /// Cuts the `fetch()` rows down to the page; the cursor of the next page, if any.
    pub fn finish<T>(&self, mut rows: Vec<T>, key: impl Fn(&T) -> K) -> (Vec<T>, Option<String>) {
        let limit = self.limit as usize;
        if rows.len() <= limit {
            return (rows, None);
        }
        rows.truncate(limit);
        let next = rows.last().map(|last| encode(&key(last)));
        (rows, next)
    }
}

fn encode<K: Serialize>(key: &K) -> String {
    // A key is plain data (numbers, ids, timestamps): serialising it cannot fail.
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(key).unwrap_or_default())
}

fn decode<K: DeserializeOwned>(cursor: &str) -> Result<K> {
    URL_SAFE_NO_PAD
        .decode(cursor)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .ok_or_else(|| {
            Error::bad_request(
                "invalid_cursor",
                "the cursor is not one this list returned; start again without it",
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(limit: Option<u32>, cursor: Option<&str>) -> PageQuery {
        PageQuery {
            limit,
            cursor: cursor.map(str::to_owned),
        }
    }

    #[test]
    fn limits_default_to_50_and_stay_within_1_to_200() {
        assert_eq!(query(None, None).parse::<i64>().unwrap().limit, 50);
        assert_eq!(query(Some(200), None).parse::<i64>().unwrap().limit, 200);
        assert!(query(Some(0), None).parse::<i64>().is_err());
        assert!(query(Some(201), None).parse::<i64>().is_err());
    }

    #[test]
    fn a_page_ends_with_the_cursor_of_its_last_row() {
        let page: Page<i64> = query(Some(2), None).parse().unwrap();
        assert_eq!(page.fetch(), 3);
        let (rows, next) = page.finish(vec![9, 8, 7], |n| *n);
        assert_eq!(rows, [9, 8]);
        let next = next.unwrap();
        let page: Page<i64> = query(Some(2), Some(&next)).parse().unwrap();
        assert_eq!(page.after, Some(8));
        let (rows, next) = page.finish(vec![7], |n| *n);
        assert_eq!((rows, next), (vec![7], None));
    }

    #[test]
    fn foreign_cursors_are_refused() {
        for bad in ["", "not base64!", "bm90IGpzb24"] {
            assert!(query(None, Some(bad)).parse::<i64>().is_err(), "{bad}");
        }
    }
}
