//! `openapi.yaml` documents exactly the routes the server registers (SPEC section 13): every
//! `.route("...", web::METHOD()...)` call under `src/` has its path and method in the document,
//! and every path and method of the document is registered. And the tests spell no API path
//! outside `tests/common` (issue 19): they go through its route helpers, so a route is spelled
//! in one place (`tests/common/paths.rs`). And the `code` enum of the error envelope lists
//! exactly the codes the server answers (`Code::ALL`, issue 19).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use common::paths;
use regex::Regex;
use serde_yaml_ng::Value as Yaml;

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// `/v1/bots/{name-or-id}` and `/v1/bots/{bot}` are the same route: placeholders become `{}`.
fn normalise(path: &str) -> String {
    let re = Regex::new(r"\{[^}/]*\}").expect("placeholder regex");
    re.replace_all(path, "{}").into_owned()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
}

/// (method, normalised path) of every route registered in `src/`, unit tests left out.
fn registered_routes() -> BTreeSet<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![];
    rust_files(&root.join("src"), &mut files);
    let re = Regex::new(r#"\.route\(\s*"([^"]+)"\s*,\s*web::([a-z]+)\(\)"#).expect("route regex");
    let mut routes = BTreeSet::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        // A unit test's own little app (after `#[cfg(test)]`, at the end of its file) is not
        // the server's; a real route lost this way fails the documented-is-registered test.
        let text = text.split("#[cfg(test)]").next().unwrap_or_default();
        for c in re.captures_iter(text) {
            routes.insert((c[2].to_string(), normalise(&c[1])));
        }
    }
    routes
}

/// (method, normalised path) of every operation in `openapi.yaml`.
fn documented_routes() -> BTreeSet<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.yaml");
    let text = std::fs::read_to_string(&path).expect("openapi.yaml");
    let doc: Yaml = serde_yaml_ng::from_str(&text).expect("openapi.yaml is YAML");
    assert!(
        doc["openapi"].as_str().is_some_and(|v| v.starts_with('3')),
        "an OpenAPI 3 document"
    );
    let paths = doc["paths"].as_mapping().expect("openapi.yaml has paths");
    let mut routes = BTreeSet::new();
    for (p, item) in paths {
        let p = p.as_str().expect("path keys are strings");
        let item = item
            .as_mapping()
            .unwrap_or_else(|| panic!("{p} is a mapping"));
        for (m, _) in item {
            let m = m.as_str().expect("method keys are strings");
            if METHODS.contains(&m) {
                routes.insert((m.to_string(), normalise(p)));
            }
        }
    }
    routes
}

#[test]
fn placeholders_are_normalised_whatever_their_names() {
    assert_eq!(normalise(&paths::bot("{name-or-id}")), paths::bot("{}"));
    assert_eq!(normalise(paths::MOVES_ROUTE), paths::moves("{}", "{}"));
    assert_eq!(normalise("/healthz"), "/healthz");
}

#[test]
fn every_registered_route_is_documented_in_openapi_yaml() {
    let registered = registered_routes();
    // The grep must see the server's routes, or the comparison proves nothing.
    assert!(
        registered.len() >= 25,
        "found only {} routes: {registered:?}",
        registered.len()
    );
    for known in [
        ("post", paths::moves("{}", "{}")),
        ("get", "/healthz".to_string()),
        ("get", paths::bot("{}")),
        ("get", "/".to_string()),
    ] {
        assert!(
            registered.contains(&(known.0.into(), known.1.clone())),
            "the grep finds {known:?}"
        );
    }
    let documented = documented_routes();
    let missing: Vec<_> = registered.difference(&documented).collect();
    assert!(
        missing.is_empty(),
        "routes missing from openapi.yaml: {missing:?}"
    );
}

#[test]
fn every_route_in_openapi_yaml_is_registered_by_the_server() {
    let registered = registered_routes();
    let documented = documented_routes();
    assert!(!documented.is_empty(), "openapi.yaml documents routes");
    let extra: Vec<_> = documented.difference(&registered).collect();
    assert!(
        extra.is_empty(),
        "openapi.yaml documents routes the server does not register: {extra:?}"
    );
}

/// The lines of `file` that spell an API path (`/v1/...`) in code, comments left out.
fn spelled_paths(file: &Path) -> Vec<String> {
    let needle = ["/v", "1/"].concat();
    let text = std::fs::read_to_string(file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//") && l.contains(&needle))
        .map(|(i, l)| format!("{}:{}: {}", file.display(), i + 1, l.trim()))
        .collect()
}

#[test]
fn no_test_outside_tests_common_spells_an_api_path() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = vec![];
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_file() && path.extension().is_some_and(|x| x == "rs") {
            files.push(path);
        }
    }
    // The scan must see the test files, or an empty answer proves nothing.
    assert!(files.len() >= 40, "found only {} test files", files.len());
    let spelled: Vec<String> = files.iter().flat_map(|f| spelled_paths(f)).collect();
    assert!(
        spelled.is_empty(),
        "paths spelled outside tests/common (use its route helpers or common::paths):\n{}",
        spelled.join("\n")
    );
    // And the scan does find a path where one is spelled.
    assert!(
        !spelled_paths(&dir.join("common").join("paths.rs")).is_empty(),
        "the scan finds the paths of tests/common/paths.rs"
    );
}

/// actix answers a path with the first registered route whose pattern matches it, and the
/// server registers its busiest routes first (issue 22), so two patterns that match one path
/// would make the order decide which handler runs. The only such pair is `/v1/bots/me` beside
/// `/v1/bots/{bot}`, registered in that order in one function.
#[test]
fn only_bots_me_shares_a_path_with_another_pattern() {
    let placeholder = Regex::new(r"\{\}").expect("placeholder regex");
    let patterns: BTreeSet<String> = registered_routes().into_iter().map(|(_, p)| p).collect();
    let matcher = |p: &str| {
        let body = regex::escape(p).replace(r"\{\}", "[^/]+");
        Regex::new(&format!("^{body}$")).expect("route pattern regex")
    };
    let mut shared = vec![];
    for p in &patterns {
        let m = matcher(p);
        for q in &patterns {
            let sample = placeholder.replace_all(q, "x1");
            if p != q && m.is_match(&sample) {
                shared.push(format!("{p} matches {q}"));
            }
        }
    }
    assert_eq!(
        shared,
        [format!("{} matches {}", paths::bot("{}"), paths::bot_me())]
    );
}

/// The `code` enum of the error envelope (`components.schemas.Error`) in `openapi.yaml`.
fn documented_error_codes() -> BTreeSet<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("openapi.yaml");
    let text = std::fs::read_to_string(&path).expect("openapi.yaml");
    let doc: Yaml = serde_yaml_ng::from_str(&text).expect("openapi.yaml is YAML");
    let codes = doc["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]
        ["enum"]
        .as_sequence()
        .expect("the Error schema has a code enum");
    codes
        .iter()
        .map(|c| c.as_str().expect("codes are strings").to_string())
        .collect()
}

#[test]
fn the_error_codes_of_openapi_yaml_are_exactly_the_codes_the_server_answers() {
    use hexarena::arena::error::Code;
    let answered: BTreeSet<String> = Code::ALL.iter().map(|c| c.as_str().to_string()).collect();
    assert_eq!(answered.len(), Code::ALL.len(), "a wire code is used twice");
    let documented = documented_error_codes();
    let undocumented: Vec<_> = answered.difference(&documented).collect();
    let unanswered: Vec<_> = documented.difference(&answered).collect();
    assert!(
        undocumented.is_empty() && unanswered.is_empty(),
        "answered but not in openapi.yaml: {undocumented:?}; in openapi.yaml but not a Code: {unanswered:?}"
    );
}
