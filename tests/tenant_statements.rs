//! Every tenant statement names one workspace's schema and nothing else: no table of the
//! control plane (`public`). A statement over both would, on a Citus cluster, join a
//! worker node's tables with the coordinator's own, shipping rows between them on every
//! execution (and for writes, often a plan Citus cannot make); on one PostgreSQL it ties a
//! workspace's schema to the database it was made in. So the control plane is read in a
//! statement of its own and the tenant statement gets what it said as parameters.
//!
//! A tenant statement is a string literal naming the `{schema}` placeholder (filled by
//! `TenantSchema::sql`, which writes the one schema it is given wherever the placeholder
//! stands: a statement cannot name two workspaces). This reads every such literal in the
//! API, the worker and the shared crate, and fails on any that also names `public.` for
//! anything but the search extensions' functions and operators (not tables). The
//! cluster test mode (`TEST_CLUSTER=citus`) checks the same at run time for what the tests
//! reach: a direct join with a `public` table fails there.
//!
//! It also refuses the simple form of CASE (`CASE n.kind WHEN 'a' THEN ...`) in them: Citus
//! 13.2 sends it to the worker node as a comparison of the operand with a boolean, which
//! fails; the searched form (`CASE WHEN n.kind = 'a' THEN ...`) means the same.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The string literals of `source` (plain `"..."` ones, escapes kept), with the line each
/// starts on. Comments are skipped, so a doc comment quoting a statement is not one.
fn literals(source: &str) -> Vec<(usize, String)> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => line += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'\'' => {
                // A char literal ('"' among them); lifetimes have no closing quote nearby.
                if bytes.get(i + 2) == Some(&b'\'') {
                    i += 3;
                    continue;
                }
                if bytes.get(i + 1) == Some(&b'\\') && bytes.get(i + 3) == Some(&b'\'') {
                    i += 4;
                    continue;
                }
            }
            b'"' => {
                let start_line = line;
                let mut text = String::new();
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        text.push(bytes[i] as char);
                        i += 1;
                    }
                    if bytes[i] == b'\n' {
                        line += 1;
                    }
                    text.push(bytes[i] as char);
                    i += 1;
                }
                found.push((start_line, text));
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// What a tenant statement may name in `public`: the search extensions' functions, operators
/// and operator classes (`migrations/V12__search_extensions.sql`), which live there once per
/// database and are no table of the control plane.
const EXTENSION_OBJECTS: [&str; 6] = [
    "public.unaccent",
    "public.word_similarity",
    "public.gin_trgm_ops",
    "public.%>",
    "public.<%",
    "public.%",
];

/// Whether `literal` names `public.` for anything but [`EXTENSION_OBJECTS`].
fn names_control_plane(literal: &str) -> bool {
    let mut rest = literal.to_owned();
    for object in EXTENSION_OBJECTS {
        rest = rest.replace(object, "");
    }
    rest.contains("public.")
}

fn is_tenant_statement(literal: &str) -> bool {
    literal.contains("{schema}.") || literal.contains("{{schema}}.")
}

#[test]
fn tenant_statements_name_one_workspace_and_plan_on_citus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "core/src", "workers/src"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut statements = 0;
    let mut offenders = Vec::new();
    let mut simple_cases = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        for (line, literal) in literals(&source) {
            if !is_tenant_statement(&literal) {
                continue;
            }
            statements += 1;
            if simple_case(&literal) {
                simple_cases.push(format!(
                    "{}:{line}",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
            if names_control_plane(&literal) {
                offenders.push(format!(
                    "{}:{line}",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(
        statements > 100,
        "only {statements} tenant statements found"
    );
    assert_eq!(
        offenders,
        Vec::<String>::new(),
        "tenant statements that also name the control plane (`public.`)"
    );
    assert_eq!(
        simple_cases,
        Vec::<String>::new(),
        "tenant statements with a simple CASE (`CASE x WHEN ...`), which Citus 13.2 sends to \
         the worker node wrongly: write `CASE WHEN x = ...`"
    );
}

/// Whether `sql` has a simple CASE: `CASE` followed by an expression, not by `WHEN`.
fn simple_case(sql: &str) -> bool {
    let words: Vec<&str> = sql.split_whitespace().collect();
    words
        .windows(2)
        .any(|w| w[0].eq_ignore_ascii_case("CASE") && !w[1].eq_ignore_ascii_case("WHEN"))
}

#[test]
fn the_scan_finds_what_it_looks_for() {
    let source = r#"
        // "SELECT 1 FROM {schema}.x JOIN public.users" is a comment
        let a = '"';
        let q = schema.sql("SELECT * FROM {schema}.contacts c
             JOIN public.users u ON u.id = c.id");
        let r = format!("SELECT * FROM {{schema}}.notes");
    "#;
    let found: Vec<(usize, String)> = literals(source)
        .into_iter()
        .filter(|(_, l)| is_tenant_statement(l))
        .collect();
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].0, 4);
    assert!(found[0].1.contains("public.users"));
    assert!(!found[1].1.contains("public."));
    assert!(simple_case("SELECT CASE n.kind WHEN 'a' THEN 1 END"));
    assert!(!simple_case("SELECT CASE WHEN n.kind = 'a' THEN 1 END"));
}
