//! CSV exports (the audit log, reports): asked for with `Accept: text/csv`, answered as a
//! download, with every cell a spreadsheet could run as a formula made inert.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::error::{Error, Result};

/// The client asked for CSV.
pub fn wanted(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|accept| accept.contains("text/csv"))
}

/// A cell a spreadsheet will not run: text people chose (a name) that starts like a formula
/// gets a leading apostrophe.
pub fn inert(cell: String) -> String {
    if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{cell}")
    } else {
        cell
    }
}

/// `header` and `rows` as a CSV download named `filename` (ASCII, no quotes).
pub fn download<R, I>(filename: &str, header: &[&str], rows: R) -> Result<Response>
where
    R: IntoIterator<Item = I>,
    I: IntoIterator<Item = String>,
{
    let fail = |e: csv::Error| Error::Internal(anyhow::anyhow!("writing the CSV: {e}"));
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(header).map_err(fail)?;
    for row in rows {
        writer.write_record(row).map_err(fail)?;
    }
    let body = writer
        .into_inner()
        .map_err(|e| Error::Internal(anyhow::anyhow!("writing the CSV: {e}")))?;
    let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{filename}\""))
        .map_err(|e| Error::Internal(anyhow::anyhow!("a CSV file name: {e}")))?;
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/csv; charset=utf-8"),
            ),
            (header::CONTENT_DISPOSITION, disposition),
        ],
        body,
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_made_inert() {
        assert_eq!(inert("=HYPERLINK(\"x\")".into()), "'=HYPERLINK(\"x\")");
        assert_eq!(inert("@SUM(A1)".into()), "'@SUM(A1)");
        assert_eq!(inert("-1".into()), "'-1");
        assert_eq!(inert("Ada Lovelace".into()), "Ada Lovelace");
    }
}
