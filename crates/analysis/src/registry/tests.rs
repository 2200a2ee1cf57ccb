//! The registry's invariants: ids unique and named after their scope, the
//! `--list` order the docs follow, a definitions section per id, defaults
//! every parameter takes, and published values that can reach a headline.
//! (That every published value does reach one is checked by running every
//! analysis over the bundled samples: `tests/it/analyze_registry.rs`.)

use std::collections::BTreeSet;

use super::*;
use crate::declare::Scope;
use crate::params::Args;

fn definitions_md() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/definitions.md");
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The scheduler-motivation views are grouped by the papers they serve
/// (`seed.<name>`, in `seed/`); their scope still says what they read: PAI
/// alone, or several traces.
#[test]
fn ids_are_unique_and_start_with_their_scope() {
    let mut seen = BTreeSet::new();
    for a in registry() {
        assert!(seen.insert(a.id), "{} is registered twice", a.id);
        let (scope, name) = a.id.split_once('.').unwrap_or_else(|| panic!("{}: expected <scope>.<name>", a.id));
        if scope == "seed" {
            assert!(matches!(a.scope, Scope::Pai | Scope::Cross), "{}: scope {}", a.id, a.scope.name());
        } else {
            assert_eq!(scope, a.scope.name(), "{}", a.id);
        }
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "{}: the name is kebab-case",
            a.id
        );
    }
    assert_eq!(seen.len(), 71);
}

/// `docs/definitions.md` has a `## <id>` section per analysis, in `--list`
/// order, and no section for an id that is not registered.
#[test]
fn every_id_has_a_definitions_section_in_list_order() {
    let text = definitions_md();
    let sections: Vec<&str> =
        text.lines().filter_map(|l| l.strip_prefix("## ")).filter(|h| h.contains('.') && !h.contains(' ')).collect();
    let ids: Vec<&str> = registry().iter().map(|a| a.id).collect();
    assert_eq!(sections, ids);
}

#[test]
fn find_names_close_ids_when_it_fails() {
    assert_eq!(find("pai.gang-size").unwrap().id, "pai.gang-size");
    let err = find("gang-size").unwrap_err().to_string();
    assert_eq!(err, "unknown analysis `gang-size`; did you mean pai.gang-size?");
    let err = find("nope").unwrap_err().to_string();
    assert_eq!(err, "unknown analysis `nope`; see `tracelab analyze --list`");
}

/// Every default is a value its kind takes, parameter names are unique per
/// analysis, and the typed parameters read from the defaults (the
/// definition of every analysis renders without running it).
#[test]
fn every_default_is_valid_and_every_definition_renders() {
    for a in registry() {
        let mut names = BTreeSet::new();
        for p in a.params {
            assert!(names.insert(p.name), "{}: parameter {} declared twice", a.id, p.name);
            assert!(p.kind.check(p.default).is_ok(), "{}: default {}={} is not valid", a.id, p.name, p.default);
            assert!(!p.doc.is_empty(), "{}: parameter {} has no doc", a.id, p.name);
        }
        let definition = a.definition(&[]).unwrap();
        assert!(!definition.is_empty(), "{}", a.id);
        assert!(!a.title.is_empty() && !a.summary.is_empty() && !a.mirrors.is_empty(), "{}", a.id);
    }
}

/// Published values: unique keys per analysis, a source, a finite value,
/// and conditions (`when`) naming declared parameters with values they
/// take.
#[test]
fn published_values_are_well_formed() {
    let mut total = 0;
    for a in registry() {
        let published = a.published();
        let mut keys = BTreeSet::new();
        for p in published.iter() {
            assert!(keys.insert(p.key.to_string()), "{}: published key {} twice", a.id, p.key);
            assert!(!p.source.is_empty() && p.value.is_finite(), "{}: {}", a.id, p.key);
            for (name, value) in p.when {
                let param = a.params.iter().find(|s| s.name == *name);
                let param = param.unwrap_or_else(|| panic!("{}: {} holds when {name}=..., not declared", a.id, p.key));
                assert!(param.kind.check(value).is_ok(), "{}: {} holds when {name}={value}", a.id, p.key);
            }
        }
        total += published.len();
    }
    // 150 of them are the cells of helios_cluster_summary.csv (5 rows x 30).
    assert!(total > 150, "{total}");
}

/// The published values of helios.vc-utilization hold for the paper's
/// parameters only (Earth, 2020-05, top 10, day 10 left out), whatever the
/// spelling of equal numbers.
#[test]
fn conditional_published_values_follow_the_parameters() {
    let a = find("helios.vc-utilization").unwrap();
    let published = a.published();
    let fig4 = published.iter().find(|p| p.key == "vc6YE.mean").unwrap();
    let given = |pairs: &[(&str, &str)]| -> Args {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Args::validate(a, &pairs).unwrap()
    };
    assert!(fig4.applies(&given(&[])));
    assert!(fig4.applies(&given(&[("top", "010")])));
    assert!(!fig4.applies(&given(&[("top", "5")])));
    assert!(!fig4.applies(&given(&[("cluster", "Venus")])));
}

/// Analyses declare their published values; none attaches one itself with
/// `Headline::published(value, source)` (the trace folders are searched).
#[test]
fn no_analysis_attaches_a_published_value_in_its_run() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut stack: Vec<_> = ["pai", "philly", "helios", "cross", "seed"].iter().map(|d| src.join(d)).collect();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                let attaches = text.match_indices(".published(").any(|(i, m)| !text[i + m.len()..].starts_with(')'));
                assert!(!attaches, "{} calls Headline::published", path.display());
            }
        }
    }
}

/// Every analysis of the registry has its long-form definition.
#[test]
fn every_analysis_has_its_long_form_definition() {
    for a in registry() {
        assert!(a.doc.trim().len() > 40, "{}: no DOC", a.id);
        assert!(!a.doc.contains("**Parameters:**"), "{}: parameters are generated from the declaration", a.id);
    }
}

/// The owners' column names that the store spells differently (the store
/// adds the unit: `machine_gpu` is `machine_gpu_pct`), from the raw layouts
/// and the canonical tables.
fn renamed_raw_columns() -> BTreeSet<&'static str> {
    use tracelab_schema::raw;
    let layouts = [
        &raw::pai::JOB,
        &raw::pai::TASK,
        &raw::pai::INSTANCE,
        &raw::pai::SENSOR,
        &raw::pai::GROUP_TAG,
        &raw::pai::MACHINE_SPEC,
        &raw::pai::MACHINE_METRIC,
        &raw::philly::GPU_UTIL,
        &raw::philly::CPU_UTIL,
        &raw::philly::MEM_UTIL,
        &raw::helios::CLUSTER_LOG,
        &raw::acme::SEREN,
        &raw::acme::KALOS,
        &raw::spot::JOBS,
        &raw::spot::NODES,
    ];
    let canonical: BTreeSet<&str> =
        tracelab_schema::all_tables().iter().flat_map(|t| t.columns.iter().map(|c| c.name)).collect();
    layouts
        .iter()
        .flat_map(|l| l.columns.iter().copied())
        .filter(|raw| !canonical.contains(raw))
        .filter(|raw| canonical.iter().any(|c| c.strip_prefix(raw).is_some_and(|rest| rest.starts_with('_'))))
        .collect()
}

/// The names in `text` that are renamed owners' columns, as a word of
/// their own: only `_`-joined names (`duration` or `queue` are also words),
/// and not where the text says it means the raw column ("raw `queue`").
fn raw_names_in(text: &str, renamed: &BTreeSet<&str>) -> Vec<String> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = BTreeSet::new();
    let mut rest = text;
    while let Some(start) = rest.find(word) {
        let before = &text[..text.len() - rest.len() + start];
        let tail = &rest[start..];
        let end = tail.find(|c: char| !word(c)).unwrap_or(tail.len());
        let name = &tail[..end];
        let raw_mention = before.ends_with("raw `") || before.ends_with("raw ") || before.ends_with("Raw `");
        if name.contains('_') && renamed.contains(name) && !raw_mention && !before.ends_with(['.', '/']) {
            found.insert(name.to_string());
        }
        rest = &tail[end..];
    }
    found.into_iter().collect()
}

/// A definition names the store's columns as `tracelab schema` and
/// `tracelab query` show them (`machine_gpu_pct`), not the owners' raw
/// names the store renamed (`machine_gpu`): the long form, the printed
/// one-paragraph definition and the shared prose of docs/definitions.md.
#[test]
fn definitions_name_the_stores_columns() {
    let renamed = renamed_raw_columns();
    assert!(renamed.contains("machine_gpu") && renamed.contains("plan_cpu"), "{renamed:?}");
    let mut bad = Vec::new();
    for a in registry() {
        for (what, text) in [("DOC", a.doc.to_string()), ("definition", a.definition(&[]).unwrap())] {
            let names = raw_names_in(&text, &renamed);
            if !names.is_empty() {
                bad.push(format!("{} {what}: {}", a.id, names.join(", ")));
            }
        }
    }
    let shared = raw_names_in(include_str!("../definitions.md"), &renamed);
    if !shared.is_empty() {
        bad.push(format!("definitions.md: {}", shared.join(", ")));
    }
    assert!(bad.is_empty(), "owners' column names the store renamed:\n{}", bad.join("\n"));
}
