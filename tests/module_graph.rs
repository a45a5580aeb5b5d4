//! The API crate's layering, checked: the modules that every request passes through
//! (`state`, `auth`, `authz`, `tenancy`, `workspaces`, `api_keys`) and those of the chat
//! (`hub`, `chat`, `widget`, `conversations`, `inbox`) must not depend on each other in a
//! circle. A cycle there means a type lives in the wrong home, and it is how the next
//! feature's module ends up importing half of the crate.
//!
//! The graph is read from the source, one node per module file (`auth::login`, `authz`,
//! `state`, ...): a module depends on another when its code names a path into it
//! (`crate::a::b::T` or inside a `crate::{...}` group), resolved to the longest module path
//! that exists. Comments and literals are not code: a doc comment that points the reader to
//! another module ("`crate::chat::lifecycle` closes these connections") depends on nothing.
//! Both the module files and the top-level modules they make up must be free of cycles:
//! what the request path shares (the state, credentials, memberships) sits below the
//! capabilities that use it, the hub's machinery below the endpoint (`chat`) in front of it,
//! and the inbox's records below the conversations and the widget that use them.
//!
//! The workspace event log (`events`) is left out on purpose. Its catalogue names the
//! records of every capability (a conversation, a ticket, an agent), and every capability
//! raises events into it, so as top-level modules `events` and each capability depend on
//! each other by design. Between files there is no circle: the record types sit below the
//! event catalogue, which sits below the actions that raise events (records <- `events`
//! catalogue <- actions), and that is what the file-level check is for.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "test and benchmark harness: a failure here is a failed run, with its message"
)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules whose module files must form no cycle among themselves (and which
/// form none as top-level modules either). Not `events`: see the module's documentation.
const LAYERED: [&str; 11] = [
    "state",
    "auth",
    "authz",
    "tenancy",
    "workspaces",
    "api_keys",
    "hub",
    "chat",
    "widget",
    "conversations",
    "inbox",
];

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

/// The module path of a file of `src/` (`src/auth/jwt.rs` -> `auth::jwt`, `src/authz/mod.rs`
/// -> `authz`).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).unwrap().with_extension("");
    let segments: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|s| s != "mod")
        .collect();
    segments.join("::")
}

fn identifier(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The paths of a use tree starting at `text` (after `crate::`): `a::b::T` gives `a::b::T`,
/// `a::{b::T, c}` gives `a::b::T` and `a::c`.
fn use_tree(text: &str, prefix: &str, out: &mut Vec<String>) {
    let mut path = prefix.to_owned();
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let (mut depth, mut item_start) = (0usize, 0usize);
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        use_tree(&group[item_start..i], &path, out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        use_tree(&group[item_start..i], &path, out);
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let segment = identifier(rest);
        if segment.is_empty() {
            break;
        }
        if !path.is_empty() {
            path.push_str("::");
        }
        path.push_str(segment);
        rest = &rest[segment.len()..];
        match rest.strip_prefix("::") {
            Some(next) => rest = next,
            None => break,
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

/// `source` with its comments, string literals and character literals blanked out, so that
/// only code is left to read paths from. Lines keep their places.
fn code_of(source: &str) -> String {
    let chars: Vec<char> = source.chars().collect();
    let mut code = String::with_capacity(source.len());
    let mut i = 0;
    while i < chars.len() {
        let after_identifier = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        let literal_end = match chars[i] {
            '/' if chars.get(i + 1) == Some(&'/') => Some(line_end(&chars, i)),
            '/' if chars.get(i + 1) == Some(&'*') => Some(block_comment_end(&chars, i)),
            '"' => Some(string_end(&chars, i)),
            '\'' => char_literal_end(&chars, i),
            'b' | 'c' | 'r' if !after_identifier => raw_string_end(&chars, i),
            _ => None,
        };
        match literal_end {
            Some(end) => {
                let end = end.min(chars.len());
                code.extend(
                    chars[i..end]
                        .iter()
                        .map(|c| if *c == '\n' { '\n' } else { ' ' }),
                );
                i = end;
            }
            None => {
                code.push(chars[i]);
                i += 1;
            }
        }
    }
    code
}

/// Where the line comment at `i` ends (its line's end).
fn line_end(chars: &[char], i: usize) -> usize {
    chars[i..]
        .iter()
        .position(|c| *c == '\n')
        .map_or(chars.len(), |p| i + p)
}

/// Where the block comment at `i` ends; block comments nest.
fn block_comment_end(chars: &[char], i: usize) -> usize {
    let (mut depth, mut j) = (0usize, i);
    while j + 1 < chars.len() {
        match (chars[j], chars[j + 1]) {
            ('/', '*') => {
                depth += 1;
                j += 2;
            }
            ('*', '/') => {
                depth -= 1;
                j += 2;
                if depth == 0 {
                    return j;
                }
            }
            _ => j += 1,
        }
    }
    chars.len()
}

/// Where the string literal opening at `i` ends, escapes skipped.
fn string_end(chars: &[char], i: usize) -> usize {
    let mut j = i + 1;
    while j < chars.len() && chars[j] != '"' {
        j += if chars[j] == '\\' { 2 } else { 1 };
    }
    j + 1
}

/// Where the character literal at `i` ends (`'a'`, `'\n'`, `'\u{1e}'`); `None` for a
/// lifetime or a label, which are code.
fn char_literal_end(chars: &[char], i: usize) -> Option<usize> {
    match (chars.get(i + 1), chars.get(i + 2)) {
        (Some('\\'), Some(_)) => {
            let close = chars[i + 3..].iter().position(|c| *c == '\'')?;
            Some(i + 3 + close + 1)
        }
        (Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    }
}

/// Where the raw string literal (`r"..."`, `r#"..."#`, `br"..."`) at `i` ends; `None`
/// when there is none at `i`.
fn raw_string_end(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(chars[j], 'b' | 'c') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|c| **c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    let closing: Vec<char> = std::iter::once('"')
        .chain(std::iter::repeat_n('#', hashes))
        .collect();
    let end = chars[j + 1..]
        .windows(closing.len())
        .position(|w| w == closing.as_slice());
    Some(end.map_or(chars.len(), |p| j + 1 + p + closing.len()))
}

/// Every path named after `crate::` in `source`.
fn crate_paths(source: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in source.match_indices("crate::") {
        // `supportdesk_crate::` or `$crate::` are not ours.
        let before = source[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        use_tree(&source[at + "crate::".len()..], "", &mut found);
    }
    found
}

/// The longest module of `modules` that `path` names (or lies inside).
fn resolve<'m>(path: &str, modules: &'m BTreeSet<String>) -> Option<&'m String> {
    let mut candidate = path;
    loop {
        if let Some(module) = modules.get(candidate) {
            return Some(module);
        }
        candidate = &candidate[..candidate.rfind("::")?];
    }
}

fn dependencies() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let modules: BTreeSet<String> = files.iter().map(|f| module_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let module = module_of(&src, file);
        let source = std::fs::read_to_string(file).unwrap();
        let targets: BTreeSet<String> = crate_paths(&code_of(&source))
            .iter()
            .filter_map(|path| resolve(path, &modules))
            .filter(|target| **target != module)
            .cloned()
            .collect();
        graph.entry(module).or_default().extend(targets);
    }
    graph
}

fn top_level(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// A cycle among `nodes` in `graph`, as the path that closes it.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>, nodes: &[&str]) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        nodes: &[&str],
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|n| n == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_owned());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if nodes.contains(&next.as_str())
                && let Some(cycle) = visit(next, graph, nodes, path, done)
            {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    nodes
        .iter()
        .find_map(|node| visit(node, graph, nodes, &mut Vec::new(), &mut done))
}

/// `graph` with each module folded into its top-level module.
fn top_level_graph(
    graph: &BTreeMap<String, BTreeSet<String>>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut folded: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, targets) in graph {
        let from = top_level(from);
        let entry = folded.entry(from.to_owned()).or_default();
        entry.extend(
            targets
                .iter()
                .map(|to| top_level(to))
                .filter(|to| *to != from)
                .map(str::to_owned),
        );
    }
    folded
}

#[test]
fn the_request_path_modules_form_no_cycle() {
    let graph = dependencies();
    for module in LAYERED {
        assert!(graph.contains_key(module), "no module {module} in src/");
    }
    let files: Vec<&str> = graph
        .keys()
        .map(String::as_str)
        .filter(|m| LAYERED.contains(&top_level(m)))
        .collect();
    assert_eq!(
        find_cycle(&graph, &files),
        None,
        "a cycle among the module files of {LAYERED:?}"
    );
    assert_eq!(
        find_cycle(&top_level_graph(&graph), &LAYERED),
        None,
        "a cycle among the modules {LAYERED:?}"
    );
}

#[test]
fn paths_are_read_from_uses_groups_and_expressions() {
    let found = crate_paths(
        "use crate::credentials::jwt;\nuse crate::{state::AppState, authz::{Rule, actor::Actor}};\n\
         let x = $crate::nothing; supportdesk_crate::no; crate::tenancy::TenantSchema::sql(t)",
    );
    assert_eq!(
        found,
        [
            "credentials::jwt",
            "state::AppState",
            "authz::Rule",
            "authz::actor::Actor",
            "tenancy::TenantSchema::sql"
        ]
    );
    let modules: BTreeSet<String> = ["auth", "authz", "authz::actor", "tenancy"]
        .map(String::from)
        .into();
    assert_eq!(
        resolve("authz::actor::Actor", &modules).map(String::as_str),
        Some("authz::actor")
    );
    assert_eq!(
        resolve("authz::Rule", &modules).map(String::as_str),
        Some("authz")
    );
    assert_eq!(
        resolve("tenancy::TenantSchema::sql", &modules).map(String::as_str),
        Some("tenancy")
    );
    assert_eq!(resolve("state::AppState", &modules), None);
}

#[test]
fn comments_and_literals_name_no_dependency() {
    let source = concat!(
        "//! Served by `crate::chat`.\n",
        "/// See crate::widget::visitor.\n",
        "use crate::hub::registry::Scope; // not crate::inbox\n",
        "/* crate::tickets /* nested crate::agents */ still crate::auth */\n",
        "let url = \"http://x/crate::authz\"; let c = '\"'; let q = '\\'';\n",
        "let raw = r#\"crate::tenancy \" still\"#; fn f<'a>(x: &'a str) { crate::state::f(x) }\n",
        "let s = \"escaped \\\" crate::workspaces\"; crate::api_keys::g(b'x', br\"crate::x\");",
    );
    let code = code_of(source);
    assert_eq!(code.lines().count(), source.lines().count());
    assert_eq!(
        crate_paths(&code),
        ["hub::registry::Scope", "state::f", "api_keys::g"]
    );
}

#[test]
fn a_cycle_is_found_and_a_layering_is_not() {
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(
        find_cycle(&graph, &["a", "b", "c"]),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    assert_eq!(find_cycle(&graph, &["a", "b", "d"]), None);
}
