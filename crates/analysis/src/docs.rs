//! `docs/definitions.md`, generated from the declarations: each analysis's
//! section is its [`crate::Analyze::DOC`], its declared parameters, its
//! published values and its one-paragraph definition, so a definition is
//! written once, in the analysis's file. The prose every analysis of a trace
//! shares (conventions, vocabularies, the owners' frames) is the template
//! `definitions.md` beside this file; `{{contents}}` and
//! `{{analyses <group>}}` there expand to the registry's analyses in
//! `--list` order.
//!
//! Text only: the binary prints it (`tracelab analyze --describe`), and a
//! test compares the committed document with it.

use crate::declare::Analysis;
use crate::params::{Args, Kind, ParamSpec};
use tracelab_schema::error::Result;

const TEMPLATE: &str = include_str!("definitions.md");

/// The groups of the document, in order: the id prefix and its name in the
/// contents table.
const GROUPS: [(&str, &str); 7] = [
    ("pai", "Alibaba PAI"),
    ("philly", "Microsoft Philly"),
    ("helios", "SenseTime Helios"),
    ("acme", "Shanghai AI Lab AcmeTrace"),
    ("spot", "Alibaba spot-GPU trace"),
    ("cross", "Across traces"),
    ("seed", "Scheduler motivations"),
];

/// Above this many published values a section counts them instead of
/// listing them (helios.cluster-summary compares a whole published table).
const LISTED_PUBLISHED: usize = 12;

/// The whole of `docs/definitions.md`.
pub fn document() -> String {
    let mut out = String::new();
    let mut heading = "";
    for line in TEMPLATE.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            heading = h;
        }
        if line == "{{contents}}" {
            out.push_str(&contents());
        } else if let Some(group) = line.strip_prefix("{{analyses ").and_then(|g| g.strip_suffix("}}")) {
            let sections: Vec<String> = in_group(group)
                .map(|a| section_of(a, &Args::validate(a, &[]).expect("defaults are valid (a registry test checks)")))
                .collect();
            out.push_str(sections.join("\n").trim_end());
            out.push('\n');
            debug_assert!(GROUPS.iter().any(|(g, _)| *g == group), "{group}: not a group ({heading})");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// The section of `analysis` for the `given` parameters (defaults for the
/// others): what `tracelab analyze <ID> --describe` prints.
pub fn section(analysis: &Analysis, given: &[(String, String)]) -> Result<String> {
    Ok(section_of(analysis, &Args::validate(analysis, given)?))
}

fn in_group(group: &str) -> impl Iterator<Item = &'static Analysis> + '_ {
    crate::registry().iter().filter(move |a| a.id.split('.').next() == Some(group))
}

fn section_of(a: &Analysis, args: &Args) -> String {
    let mut s = format!("## {}\n\n{}\n", a.id, a.doc.trim());
    s.push_str(&format!("- **Parameters:** {}\n", parameters(a.params)));
    s.push_str(&published(a, args));
    let definition = a.definition(&args.pairs()).unwrap_or_default();
    let with = if a.params.is_empty() { String::new() } else { format!(" with {}", shown_params(args)) };
    s.push_str(&format!(
        "\n`tracelab analyze {}`{with} prints this definition with its result (a `{{name}}` is a number the run fills \
         in from the data):\n\n> {}\n",
        a.id,
        definition.replace('\n', "\n> ")
    ));
    s
}

fn shown_params(args: &Args) -> String {
    args.pairs().iter().map(|(k, v)| format!("`{k}={v}`")).collect::<Vec<_>>().join(", ")
}

/// `name` = `default` (kind): doc, for every parameter.
fn parameters(declared: &[ParamSpec]) -> String {
    if declared.is_empty() {
        return "none.".into();
    }
    let each: Vec<String> = declared
        .iter()
        .map(|p| {
            let kind = match p.kind {
                Kind::Text => String::new(),
                k => format!(" ({})", k.expected()),
            };
            format!("`{}` = `{}`{kind}: {}", p.name, p.default, p.doc)
        })
        .collect();
    each.join("; ") + "."
}

/// The published values declared, as the headlines show them.
fn published(a: &Analysis, args: &Args) -> String {
    let list = a.published();
    if list.is_empty() {
        return String::new();
    }
    if list.len() > LISTED_PUBLISHED {
        let mut sources: Vec<&str> = list.iter().map(|p| p.source).collect();
        sources.dedup();
        return format!(
            "- **Published values compared:** {} headline values, from {}.\n",
            list.len(),
            sources.join("; ")
        );
    }
    let each: Vec<String> = list
        .iter()
        .map(|p| {
            let unit = if p.unit.is_empty() { String::new() } else { format!(" {}", p.unit) };
            let when: Vec<String> = p.when.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let when = if when.is_empty() { String::new() } else { format!("; when {}", when.join(", ")) };
            let off = if p.applies(args) { "" } else { " (not for these parameters)" };
            format!("`{}` {}{unit} ({}{when}){off}", p.key, p.value, p.source)
        })
        .collect();
    format!("- **Published values compared** (headline key, value, source): {}.\n", each.join("; "))
}

/// The contents table: one row per group, its analyses linked.
fn contents() -> String {
    let mut s = String::from("| trace | analyses |\n|---|---|\n");
    let mut heading = "";
    for line in TEMPLATE.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            heading = h;
        }
        let Some(group) = line.strip_prefix("{{analyses ").and_then(|g| g.strip_suffix("}}")) else { continue };
        let name = GROUPS.iter().find(|(g, _)| *g == group).map_or(group, |(_, n)| n);
        let links: Vec<String> = in_group(group).map(|a| format!("[{}](#{})", a.id, anchor(a.id))).collect();
        s.push_str(&format!("| [{name}](#{}) | {} |\n", anchor(heading), links.join(", ")));
    }
    s.trim_end().to_string() + "\n"
}

/// The anchor GitHub gives a heading: lower case, spaces to hyphens,
/// punctuation other than `-` and `_` dropped.
pub fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}
