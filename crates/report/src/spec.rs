//! Report specs (`notebooks-equivalents/*.toml`): one per published notebook
//! or paper. A spec names, for every figure, the analysis and parameters it
//! plots, which part of the result, the plot kind, the axes as upstream drew
//! them, and a caption stating the definition.
//!
//! Parsing and validation only: everything a spec can get wrong without
//! running an analysis (unknown analysis, parameter or field, a kind without
//! the columns it needs, duplicate ids) is an error naming the spec file and
//! line, reported before any work starts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use sha2::{Digest, Sha256};
use toml::Spanned;

use tracelab_analysis::{self as analysis, Analysis};
use tracelab_schema::error::{Error, Result};

/// The specs compiled into the binary, so `tracelab report` works from any
/// directory; `--spec FILE` reads others.
pub const BUILTIN: [(&str, &str); 10] = [
    ("notebooks-equivalents/pai-nsdi22.toml", include_str!("../../../notebooks-equivalents/pai-nsdi22.toml")),
    ("notebooks-equivalents/philly-atc19.toml", include_str!("../../../notebooks-equivalents/philly-atc19.toml")),
    ("notebooks-equivalents/helios-sc21.toml", include_str!("../../../notebooks-equivalents/helios-sc21.toml")),
    ("notebooks-equivalents/acme-nsdi24.toml", include_str!("../../../notebooks-equivalents/acme-nsdi24.toml")),
    ("notebooks-equivalents/spot-asplos26.toml", include_str!("../../../notebooks-equivalents/spot-asplos26.toml")),
    ("notebooks-equivalents/cross-trace.toml", include_str!("../../../notebooks-equivalents/cross-trace.toml")),
    ("notebooks-equivalents/seed-systems.toml", include_str!("../../../notebooks-equivalents/seed-systems.toml")),
    ("notebooks-equivalents/simulation.toml", include_str!("../../../notebooks-equivalents/simulation.toml")),
    ("notebooks-equivalents/gpu-sharing.toml", include_str!("../../../notebooks-equivalents/gpu-sharing.toml")),
    ("notebooks-equivalents/pollux-osdi21.toml", include_str!("../../../notebooks-equivalents/pollux-osdi21.toml")),
];

/// A parsed, validated spec.
#[derive(Debug, Clone)]
pub struct Spec {
    /// Where it came from (for messages and the report's provenance).
    pub path: PathBuf,
    /// sha256 of the spec's bytes, printed in the report.
    pub sha256: String,
    pub source: String,
    pub body: SpecBody,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecBody {
    /// Short id, also the report's folder for this spec's figures.
    pub id: String,
    pub title: String,
    /// The traces the spec needs; it is skipped (with a note) when the store
    /// lacks all of them.
    pub traces: Vec<String>,
    /// The paper, as cited.
    pub paper: String,
    /// The owners' code the figures follow, if any.
    #[serde(default)]
    pub upstream: String,
    /// A paragraph printed under the spec's heading.
    #[serde(default)]
    pub intro: String,
    #[serde(rename = "figure")]
    pub figures: Vec<Spanned<FigureSpec>>,
}

/// One figure (or table) of a spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FigureSpec {
    /// Unique within the spec; the SVG's file name.
    pub id: String,
    pub title: String,
    /// The paper figure or notebook cell it mirrors.
    pub mirrors: String,
    pub analysis: Spanned<String>,
    #[serde(default)]
    pub params: BTreeMap<String, Spanned<toml::Value>>,
    /// The part of the analysis output to draw.
    pub part: String,
    pub kind: Kind,
    /// States the definition used (table, filter, which queueing delay).
    pub caption: String,
    #[serde(default)]
    pub x: AxisSpec,
    #[serde(default)]
    pub y: AxisSpec,
    /// Twin right axis (curves) or the colour scale (heat).
    pub y2: Option<AxisSpec>,
    /// Series to draw, in order (default: all, in the analysis's order). A
    /// series naming a trace (`pai`, `helios/Venus`) or Helios cluster the
    /// report lacks is left out with a note; any other series the part lacks
    /// is an error at this line.
    pub series: Option<Spanned<Vec<String>>>,
    /// Series drawn against the right axis.
    #[serde(default)]
    pub right: Vec<String>,
    /// Legend text per series label.
    #[serde(default)]
    pub rename: BTreeMap<String, String>,
    /// Table-based kinds: the column naming the category (bars, box) or the
    /// rows (heat).
    pub category: Option<String>,
    /// Bars: one series per value column. Tables: the columns shown.
    pub columns: Option<Vec<String>>,
    /// Bars from a long table: one series per distinct value of this column
    /// (first-appearance order, or `series`), each plotting the single
    /// `columns` entry against `category`.
    pub pivot: Option<String>,
    /// Keep only table rows whose column equals the value.
    #[serde(default)]
    pub rows: BTreeMap<String, String>,
    /// Box: the columns holding whisker_lo, q1, median, q3, whisker_hi.
    pub boxes: Option<[String; 5]>,
    /// Heat: the column holding the time bin and the one holding the value.
    pub heat: Option<[String; 2]>,
    /// Histogram: the columns holding each bin's lower and upper edge (the
    /// values are the `columns`).
    pub bins: Option<[String; 2]>,
    /// What counts as no data, drawn as a gap (line broken, bar absent):
    /// `outer-zeros` (the only value) when the analysis fills a fixed grid (months 4..9, the
    /// days of 2020-04..09) with 0 outside the trace's window, so zeros
    /// before a series' first and after its last non-zero value are no
    /// data. Without it only missing bins (`bin`) and NaN are gaps.
    pub gaps: Option<Gaps>,
    /// Curves: average y over x bins of this width (long per-minute series).
    pub bin: Option<f64>,
    /// Curves / dists: divide x by this (minutes -> days, s -> h).
    pub x_div: Option<f64>,
    /// Legend placement (default auto).
    #[serde(default)]
    pub legend: LegendSpec,
    /// Width and height in px.
    pub size: Option<[u32; 2]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// A `dists` part as CDF curves (the owners' 100*i/(n-1) convention).
    Cdf,
    /// A `dists` part as P(X > x), for log-log tail plots.
    Ccdf,
    /// A `curves` part as lines.
    Lines,
    /// A `curves` part as post steps.
    Steps,
    /// A `curves` part as markers.
    Scatter,
    /// A `table` part as bars: `category` x `columns`.
    Bars,
    /// The same, horizontal (long category names).
    Hbars,
    /// Stacked horizontal bars (shares that add up).
    Stacked,
    /// Stacked vertical bars (counts per month, per hour).
    StackedColumns,
    /// A `table` part as box plots (`category`, `boxes`).
    Box,
    /// A `table` part as a heat map (`category` rows x `heat` columns).
    Heat,
    /// A `table` part as a histogram: bars from `bins` lower to upper edge,
    /// one series per `columns` entry, on a numeric x axis.
    Histogram,
    /// A `table` part as an HTML table.
    Table,
    /// A `dists` part as a table of n, mean and quantiles.
    Quantiles,
    /// A `headlines` part as a table, published values beside ours.
    Headlines,
}

impl Kind {
    /// Drawn as SVG (the others are HTML tables).
    pub fn is_chart(self) -> bool {
        !matches!(self, Kind::Table | Kind::Quantiles | Kind::Headlines)
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AxisSpec {
    /// Label with unit; default: the analysis's own label.
    pub label: Option<String>,
    /// The scale (default: the analysis's, usually linear).
    pub scale: Option<ScaleSpec>,
    /// Symlog's linear range around 0.
    pub linthresh: Option<f64>,
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub ticks: Option<Vec<f64>>,
    /// How tick labels are written (default auto).
    #[serde(default)]
    pub format: FormatSpec,
}

/// `gaps`: what counts as no data besides missing bins and NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Gaps {
    /// Zeros before a series' first and after its last non-zero value (an
    /// analysis that fills a fixed grid with 0 outside the trace's window).
    OuterZeros,
}

/// `legend`: where the legend goes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LegendSpec {
    /// The first free corner, else below the plot.
    #[default]
    Auto,
    /// No legend.
    None,
    Below,
    TopLeft,
    TopRight,
    BottomLeft,
    BottomRight,
}

/// An axis's `scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScaleSpec {
    Linear,
    /// Base 10.
    Log,
    /// Linear within +-`linthresh`, log beyond (matplotlib's symlog).
    Symlog,
}

/// An axis's `format` (tick labels).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FormatSpec {
    #[default]
    Auto,
    /// Fractions as percentages.
    Percent,
    /// Whole numbers.
    Integer,
    /// Seconds as the largest whole unit (1.5m, 1h, 1d).
    Duration,
    /// Powers of ten.
    Sci,
}

/// The most figures a spec may hold unless raised (`report --max-figures`):
/// the largest built-in spec has about 50; each figure costs its rendering
/// (a 10,000-figure spec took minutes and gigabytes), so a spec far above
/// this is more likely a generated mistake than a report.
pub const DEFAULT_MAX_FIGURES: usize = 500;

/// A spec file larger than this is refused before it is read (the built-in
/// ones are under 100 KB).
pub const MAX_SPEC_BYTES: u64 = 16 << 20;

/// The longest spec or figure id: it becomes a folder or file name.
pub const MAX_ID_LEN: usize = 64;

impl Spec {
    /// Parses and validates the spec text, with at most
    /// [`DEFAULT_MAX_FIGURES`] figures.
    pub fn parse(path: &Path, source: &str) -> Result<Spec> {
        Spec::parse_within(path, source, DEFAULT_MAX_FIGURES)
    }

    /// Parses and validates the spec text, with at most `max_figures`.
    pub fn parse_within(path: &Path, source: &str, max_figures: usize) -> Result<Spec> {
        let body: SpecBody = toml::from_str(source).map_err(|e| spec_error(path, source, e.span(), e.message()))?;
        let mut spec = Spec { path: path.to_path_buf(), sha256: sha256_hex(source), source: source.to_string(), body };
        spec.validate(max_figures)?;
        spec.fill_captions()?;
        Ok(spec)
    }

    pub fn load(path: &Path) -> Result<Spec> {
        Spec::load_within(path, DEFAULT_MAX_FIGURES)
    }

    /// Reads (at most [`MAX_SPEC_BYTES`]) and parses the spec at `path`.
    pub fn load_within(path: &Path, max_figures: usize) -> Result<Spec> {
        let bytes = std::fs::metadata(path).map_err(|e| Error::io(path, e))?.len();
        if bytes > MAX_SPEC_BYTES {
            return Err(Error::Usage(format!(
                "spec {}: {bytes} bytes; a spec is at most {MAX_SPEC_BYTES} bytes",
                path.display()
            )));
        }
        let source = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Spec::parse_within(path, &source, max_figures)
    }

    /// The specs compiled into the binary.
    pub fn builtin() -> Result<Vec<Spec>> {
        BUILTIN.iter().map(|(path, text)| Spec::parse(Path::new(path), text)).collect()
    }

    /// The specs a report renders: the built-in ones when `paths` is empty,
    /// else the spec files at `paths` (each of at most `max_figures`
    /// figures, their ids distinct), as `tracelab report --spec` and
    /// Python's `Store.report(specs=)` take them.
    pub fn chosen(paths: &[PathBuf], max_figures: usize) -> Result<Vec<Spec>> {
        if paths.is_empty() {
            return Spec::builtin();
        }
        let specs = paths.iter().map(|p| Spec::load_within(p, max_figures)).collect::<Result<Vec<_>>>()?;
        Spec::distinct(&specs)?;
        Ok(specs)
    }

    /// Refuses two specs with one id (case aside): their figures would
    /// share a folder of the report.
    pub fn distinct(specs: &[Spec]) -> Result<()> {
        let mut seen: BTreeMap<String, &Path> = BTreeMap::new();
        for s in specs {
            if let Some(first) = seen.insert(s.body.id.to_ascii_lowercase(), &s.path) {
                let head = 0..s.body.figures.first().map_or(s.source.len(), |f| f.span().start);
                let msg = format!("spec id `{}` is also the id of {}", s.body.id, first.display());
                return Err(s.error_at(id_line(&s.source, head), &msg));
            }
        }
        Ok(())
    }

    /// An error at the line of `span` in this spec.
    pub fn error_at(&self, span: std::ops::Range<usize>, message: &str) -> Error {
        spec_error(&self.path, &self.source, Some(span), message)
    }

    fn validate(&self, max_figures: usize) -> Result<()> {
        let known: Vec<&str> = tracelab_schema::Trace::ALL.iter().map(|t| t.name()).collect();
        if let Some(t) = self.body.traces.iter().find(|t| !known.contains(&t.as_str())) {
            let expected = known.join(", ");
            return Err(self.error_at(0..0, &format!("traces: unknown trace `{t}` (expected {expected})")));
        }
        let head = 0..self.body.figures.first().map_or(self.source.len(), |f| f.span().start);
        if let Some(problem) = id_problem(&self.body.id) {
            return Err(self.error_at(id_line(&self.source, head), &format!("spec id: {problem}")));
        }
        if let Some(extra) = self.body.figures.get(max_figures) {
            let msg = format!(
                "{} figures; a spec holds at most {max_figures} (raise it with --max-figures)",
                self.body.figures.len()
            );
            return Err(self.error_at(extra.span(), &msg));
        }
        // Ids are file names: two that differ only in case are one file on
        // a case-insensitive file system (macOS, Windows).
        let mut seen = BTreeMap::new();
        for fig in &self.body.figures {
            let id = &fig.get_ref().id;
            if let Some(problem) = id_problem(id) {
                return Err(self.error_at(id_line(&self.source, fig.span()), &format!("figure id: {problem}")));
            }
            if seen.insert(id.to_ascii_lowercase(), ()).is_some() {
                return Err(self.error_at(fig.span(), &format!("figure id `{id}` appears twice")));
            }
            self.validate_figure(fig)?;
        }
        Ok(())
    }

    /// Fills every caption's placeholders from its figure's parameters
    /// ([`crate::caption`]); an unknown one is an error at the figure.
    fn fill_captions(&mut self) -> Result<()> {
        let mut filled = Vec::with_capacity(self.body.figures.len());
        for fig in &self.body.figures {
            let f = fig.get_ref();
            let analysis = analysis_of(f);
            let args = analysis::Args::validate(analysis, &params_of(f))
                .map_err(|e| self.error_at(fig.span(), &format!("figure `{}`: {e}", f.id)))?;
            let caption = crate::caption::fill(&f.caption, &args, analysis.id).map_err(|e| {
                self.error_at(caption_line(&self.source, fig.span()), &format!("figure `{}`: {e}", f.id))
            })?;
            filled.push(caption);
        }
        for (fig, caption) in self.body.figures.iter_mut().zip(filled) {
            fig.get_mut().caption = caption;
        }
        Ok(())
    }

    fn validate_figure(&self, fig: &Spanned<FigureSpec>) -> Result<()> {
        let f = fig.get_ref();
        let analysis = find(f.analysis.get_ref())
            .map_err(|e| self.error_at(f.analysis.span(), &format!("figure `{}`: {e}", f.id)))?;
        for (name, value) in &f.params {
            if !analysis.params.iter().any(|p| p.name == name) {
                let names: Vec<&str> = analysis.params.iter().map(|p| p.name).collect();
                let takes = if names.is_empty() { "no parameters".to_string() } else { names.join(", ") };
                let msg = format!("figure `{}`: {} has no parameter `{name}` (it takes {takes})", f.id, analysis.id);
                return Err(self.error_at(value.span(), &msg));
            }
        }
        analysis::Args::validate(analysis, &params_of(f))
            .map_err(|e| self.error_at(fig.span(), &format!("figure `{}`: {e}", f.id)))?;
        let missing = needs(f);
        if let Some(what) = missing {
            return Err(self.error_at(fig.span(), &format!("figure `{}` ({:?}): {what}", f.id, f.kind)));
        }
        Ok(())
    }
}

/// What is wrong with an id as a file name, if anything: ids become the
/// report's folders (`<spec id>/`) and files (`<figure id>.svg`), so they
/// are names, never paths: ASCII letters, digits, `-` and `_`, starting
/// with a letter or digit, at most [`MAX_ID_LEN`] characters.
pub fn id_problem(id: &str) -> Option<String> {
    let shown = tracelab_present::text::neutralize_lines(&format!("{id:?}")).into_owned();
    if id.is_empty() {
        return Some("empty; expected a name such as `fig-2a`".into());
    }
    if id.len() > MAX_ID_LEN {
        return Some(format!("{} characters; at most {MAX_ID_LEN}", id.chars().count()));
    }
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if !id.chars().all(allowed) || !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Some(format!(
            "{shown}: expected ASCII letters, digits, `-` and `_`, starting with a letter or digit (an id is a file name, not a path)"
        ));
    }
    None
}

/// The span of the `id = ...` line within `span` of `source` (the whole
/// span when there is none, as in an inline table).
fn id_line(source: &str, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    key_line(source, span, "id")
}

/// The span of the `caption = ...` line within `span` of `source`.
fn caption_line(source: &str, span: std::ops::Range<usize>) -> std::ops::Range<usize> {
    key_line(source, span, "caption")
}

/// The span of the line setting `key` within `span` of `source` (the
/// whole span when there is none).
fn key_line(source: &str, span: std::ops::Range<usize>, key: &str) -> std::ops::Range<usize> {
    let text = source.get(span.clone()).unwrap_or_default();
    let mut at = span.start;
    for line in text.split_inclusive('\n') {
        let k = line.trim_start();
        if k.strip_prefix(key).is_some_and(|rest| rest.trim_start().starts_with('=')) {
            return at..at + line.len();
        }
        at += line.len();
    }
    span
}

/// The figure's parameters as (name, value) text pairs.
pub fn params_of(f: &FigureSpec) -> Vec<(String, String)> {
    f.params
        .iter()
        .map(|(k, v)| {
            let text = match v.get_ref() {
                toml::Value::String(s) => s.clone(),
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(x) => x.to_string(),
                toml::Value::Boolean(b) => b.to_string(),
                other => format!("{other:?}"),
            };
            (k.clone(), text)
        })
        .collect()
}

/// What a table-based kind lacks, if anything.
fn needs(f: &FigureSpec) -> Option<&'static str> {
    match f.kind {
        Kind::Bars | Kind::Hbars | Kind::Stacked | Kind::StackedColumns
            if f.category.is_none() || f.columns.is_none() =>
        {
            Some("bars need `category` and `columns`")
        }
        Kind::Bars | Kind::Hbars | Kind::Stacked | Kind::StackedColumns
            if f.pivot.is_some() && f.columns.as_ref().map_or(0, Vec::len) != 1 =>
        {
            Some("`pivot` needs exactly one entry in `columns` (the value column)")
        }
        _ if f.pivot.is_some()
            && !matches!(f.kind, Kind::Bars | Kind::Hbars | Kind::Stacked | Kind::StackedColumns) =>
        {
            Some("`pivot` applies to bars, hbars and stacked only")
        }
        Kind::Box if f.category.is_none() || f.boxes.is_none() => Some("box plots need `category` and `boxes`"),
        Kind::Heat if f.category.is_none() || f.heat.is_none() => Some("heat maps need `category` and `heat`"),
        Kind::Histogram if f.bins.is_none() || f.columns.is_none() => Some("histograms need `bins` and `columns`"),
        _ => None,
    }
}

fn spec_error(path: &Path, source: &str, span: Option<std::ops::Range<usize>>, message: &str) -> Error {
    let line = span.map(|s| source[..s.start.min(source.len())].matches('\n').count() + 1);
    let at = line.map_or_else(String::new, |l| format!(", line {l}"));
    Error::Usage(format!("spec {}{at}: {}", path.display(), message.trim()))
}

pub fn sha256_hex(text: &str) -> String {
    Sha256::digest(text.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The registered analysis a figure plots (validated at parse time).
pub fn analysis_of(f: &FigureSpec) -> &'static Analysis {
    find(f.analysis.get_ref()).expect("validated when the spec was parsed")
}

/// An analysis by id: the registry's, else a simulation view (`sim.*`).
pub fn find(id: &str) -> Result<&'static Analysis> {
    analysis::find(id).or_else(|e| tracelab_workload::find(id).ok_or(e))
}
