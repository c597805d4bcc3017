//! The architecture drawn from the imports (issue 42): every `crate::`
//! path written in `src/` is an edge from the top-level module it is in (a
//! folder of `src/` or a file beside them) to the one it names; paths
//! through the crate root's re-exports (`crate::parse_model`) go to the
//! module they come from. Comments, doc comments and `#[cfg(test)]` items
//! are left out. No circle may go through two top-level modules.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// For each top-level module, the modules it imports, each with the first
/// file (relative to `src/`) that does.
type Imports = BTreeMap<String, BTreeMap<String, String>>;

#[test]
fn no_import_cycle_crosses_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let files: Vec<(String, String)> = files
        .iter()
        .map(|path| {
            let relative = path.strip_prefix(&src).unwrap();
            let relative = relative.to_str().unwrap().replace('\\', "/");
            (relative, fs::read_to_string(path).unwrap())
        })
        .collect();
    let imports = imports_of(&files);
    assert!(
        imports
            .get("parser")
            .is_some_and(|to| to.contains_key("proto")),
        "the imports were not read: {imports:?}"
    );
    let cycles = cycles_of(&imports);
    assert!(
        cycles.is_empty(),
        "import cycles across top-level modules of src/:\n{}",
        cycles.join("\n")
    );
}

/// The reading itself: a circle through two modules is found and named
/// with the files that close it, while comments, `#[cfg(test)]` modules
/// and names that are no module are not edges.
#[test]
fn a_cycle_is_found_and_named() {
    let files = [
        (
            "lib.rs",
            "mod a;\nmod b;\nmod c;\npub use b::{helper, Thing};\n",
        ),
        ("a/mod.rs", "mod inner;\n"),
        (
            "a/inner.rs",
            "use crate::{helper, c::Value};\n/// crate::c::D\nfn f() {}\n",
        ),
        (
            "b.rs",
            "pub fn helper() { crate::a::g() } // crate::c\n\
             #[cfg(test)]\nmod tests {\n    use crate::c::E;\n    fn t() {\n    }\n}\n\
             fn h() -> crate::Missing {}\n",
        ),
        ("c.rs", "pub struct Value;\n"),
    ];
    let files: Vec<(String, String)> = files
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    let imports = imports_of(&files);
    assert_eq!(
        format!("{imports:?}"),
        r#"{"a": {"b": "a/inner.rs", "c": "a/inner.rs"}, "b": {"a": "b.rs"}}"#
    );
    assert_eq!(
        cycles_of(&imports),
        ["a -> b (a/inner.rs) -> a (b.rs)".to_string()]
    );
}

/// The `.rs` files under `dir`, in a stable order.
fn rust_files(dir: &Path, files: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, files);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
}

/// The import edges of `files` (paths relative to `src/`, with their text).
fn imports_of(files: &[(String, String)]) -> Imports {
    let modules: BTreeSet<&str> = files
        .iter()
        .map(|(path, _)| top_level_module(path))
        .filter(|&module| module != "lib")
        .collect();
    let root_exports = root_exports(files, &modules);
    let mut imports = Imports::new();
    for (path, text) in files {
        let from = top_level_module(path);
        if from == "lib" {
            continue;
        }
        for name in crate_paths(&code_of(text)) {
            let to = match root_exports.get(name.as_str()) {
                Some(&module) => module,
                None if modules.contains(name.as_str()) => name.as_str(),
                None => continue,
            };
            if to != from {
                imports
                    .entry(from.to_string())
                    .or_default()
                    .entry(to.to_string())
                    .or_insert_with(|| path.clone());
            }
        }
    }
    imports
}

/// The folder or file (without `.rs`) of `src/` that `path` is in.
fn top_level_module(path: &str) -> &str {
    let first = path.split('/').next().unwrap();
    first.strip_suffix(".rs").unwrap_or(first)
}

/// The names `lib.rs` re-exports (`pub use parser::{parse_model, ...}`),
/// each with the module it comes from.
fn root_exports<'a>(
    files: &'a [(String, String)],
    modules: &BTreeSet<&'a str>,
) -> BTreeMap<&'a str, &'a str> {
    let Some((_, lib)) = files.iter().find(|(path, _)| path == "lib.rs") else {
        return BTreeMap::new();
    };
    let mut exports = BTreeMap::new();
    for statement in lib.split(';') {
        let Some(used) = statement.trim().strip_prefix("pub use ") else {
            continue;
        };
        let Some((module, names)) = used.split_once("::") else {
            continue;
        };
        let Some(&module) = modules.get(module.trim()) else {
            continue;
        };
        for name in names.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if !name.is_empty() {
                exports.insert(name, module);
            }
        }
    }
    exports
}

/// The code of `text`: its lines without comments, and without the items
/// marked `#[cfg(test)]` (a block item ends at the `}` indented as it is).
fn code_of(text: &str) -> String {
    let mut code = String::new();
    let mut test_item_end: Option<String> = None;
    let mut after_cfg_test = false;
    for line in text.lines() {
        if let Some(end) = &test_item_end {
            if line.trim_end() == end {
                test_item_end = None;
            }
            continue;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        if trimmed.starts_with("#[cfg(test)]") {
            after_cfg_test = true;
            continue;
        }
        if after_cfg_test {
            if trimmed.starts_with("#[") {
                continue;
            }
            after_cfg_test = false;
            if line.trim_end().ends_with('{') {
                let indent = &line[..line.len() - trimmed.len()];
                test_item_end = Some(format!("{indent}}}"));
            }
            continue;
        }
        let line = match line.find("//") {
            Some(at) if line[..at].matches('"').count() % 2 == 0 => &line[..at],
            _ => line,
        };
        code.push_str(line);
        code.push('\n');
    }
    code
}

/// The first name of every `crate::` path in `code`, and of each item of a
/// `crate::{...}` group.
fn crate_paths(code: &str) -> Vec<String> {
    let is_name_char = |c: char| c.is_alphanumeric() || c == '_';
    let first_name = |text: &str| -> String {
        text.trim_start()
            .chars()
            .take_while(|&c| is_name_char(c))
            .collect()
    };
    let mut names = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        if code[..at].ends_with(is_name_char) {
            continue;
        }
        let rest = &code[at + "crate::".len()..];
        let Some(group) = rest.strip_prefix('{') else {
            names.push(first_name(rest));
            continue;
        };
        let mut depth = 0;
        let mut item_start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    names.push(first_name(&group[item_start..i]));
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    names.push(first_name(&group[item_start..i]));
                    item_start = i + 1;
                }
                _ => {}
            }
        }
    }
    names.retain(|name| !name.is_empty());
    names
}

/// Every circle of `imports`, each once, as `a -> b (file) -> a (file)`
/// where `file` is the one that imports the module it follows.
fn cycles_of(imports: &Imports) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut cycles = Vec::new();
    for (from, targets) in imports {
        for to in targets.keys() {
            let Some(back) = shortest_path(imports, to, from) else {
                continue;
            };
            let mut circle = vec![from.as_str()];
            circle.extend(back.iter().map(String::as_str));
            let mut key: Vec<String> = back.clone();
            key.sort_unstable();
            if !seen.insert(key) {
                continue;
            }
            let mut text = from.clone();
            for pair in circle.windows(2) {
                let file = &imports[pair[0]][pair[1]];
                text += &format!(" -> {} ({file})", pair[1]);
            }
            cycles.push(text);
        }
    }
    cycles
}

/// The modules from `start` to `goal`, both included, by the fewest edges.
fn shortest_path(imports: &Imports, start: &str, goal: &str) -> Option<Vec<String>> {
    let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(module) = queue.pop_front() {
        if module == goal {
            let mut path = vec![goal.to_string()];
            let mut at = goal;
            while at != start {
                at = came_from[at];
                path.push(at.to_string());
            }
            path.reverse();
            return Some(path);
        }
        for next in imports.get(module).into_iter().flat_map(|t| t.keys()) {
            if next != start && !came_from.contains_key(next.as_str()) {
                came_from.insert(next, module);
                queue.push_back(next);
            }
        }
    }
    None
}
