//! Running the analyses a report needs: which specs apply to the traces at
//! hand, one run per (analysis, parameters) shared by the figures that draw
//! it, results from the cache when they are there, and each rendered figure
//! placed in its spec's part of the report.

use std::time::Instant;

use tracelab_analysis::{Ctx, Memory};
use tracelab_schema::error::{Error, Result};
use tracelab_schema::Trace;

use super::cache::{Cache, RunEntry};
use super::calibration::figure_calibrated;
use super::figure::{self, FigureOut, Rendered};
use super::headline::HeadlineRow;
use super::inputs::{markers, source_line};
use super::schedule::{self, Limits};
use super::selection::Env;
use super::spec::{self, params_of, FigureSpec, Spec};
use super::{Data, Event, FigureReport, Plan, SpecReport, Stats};

/// A figure's place: (spec index, figure index).
type Slot = (usize, usize);

/// One analysis run: (id, parameters with defaults).
type RunKey = (String, Vec<(String, String)>);

/// The spec's part of the report, empty, or skipped when the report has
/// none of its traces; a spec lacking some of them gets a note.
pub fn skip_or_empty<'a>(spec: &'a Spec, data: &Data) -> SpecReport<'a> {
    let wanted: Vec<Trace> = spec.body.traces.iter().filter_map(|t| Trace::from_name(t)).collect();
    let lacking: Vec<String> = data
        .missing
        .iter()
        .filter(|(t, _)| wanted.contains(t))
        .map(|(t, why)| format!("{} ({why})", t.name()))
        .collect();
    let have = wanted.iter().any(|t| data.present.contains(t));
    let skipped = (!have).then(|| format!("none of its traces is in this report: {}", lacking.join(", ")));
    let notes = if have && !lacking.is_empty() {
        vec![format!(
            "Drawn without {}: their series are left out of the figures, and figures of theirs alone are skipped.",
            lacking.join(", ")
        )]
    } else {
        Vec::new()
    };
    SpecReport { spec, skipped, notes, figures: Vec::new(), headlines: Vec::new() }
}

/// Runs every analysis the specs need (from the cache when possible), side
/// by side within `limits` (see [`schedule`]), and places the figures in
/// the order of the runs, so the report is the same whatever finishes first.
pub fn run_all(
    plan: &Plan,
    data: &Data,
    reports: &mut [SpecReport],
    limits: Limits,
    progress: &dyn Fn(Event),
) -> Result<Stats> {
    let runs = group_runs(plan, reports);
    // The reasons for missing traces are part of the figures' notes, so
    // they are part of the cache's identity too.
    let identity = format!("{:?}{:?}", data.missing, data.missing_clusters);
    let cache = Cache::new(&data.store, &identity, plan.cache);
    let ctx = Ctx::with_hooks(data.store.clone(), plan.hooks.clone());
    // The counter counts finished runs (threads finish out of order), of
    // the runs that read data: those of a missing trace are skipped at once.
    let total = runs.iter().filter(|((_, params), _)| replays_a_missing_trace(params, data).is_none()).count();
    let mut finished = 0;
    let outcomes = schedule::run_within(
        runs.len(),
        |i| estimate(&runs[i].0 .0, data),
        limits,
        |i| {
            let ((analysis, params), slots) = &runs[i];
            let run = Run { plan, data, cache: &cache, ctx: &ctx };
            run.outcome((analysis, params), slots)
        },
        Result::is_err,
        |i, outcome| {
            let analysis = runs[i].0 .0.as_str();
            match outcome {
                None => progress(Event::Started { analysis, run: i }),
                Some(Ok(Outcome::Ran { seconds, cached, .. })) => {
                    finished += 1;
                    progress(Event::Ran {
                        analysis,
                        run: i,
                        index: finished,
                        total,
                        seconds: *seconds,
                        cached: *cached,
                    });
                }
                Some(_) => progress(Event::Stopped { run: i }),
            }
        },
    );
    let mut stats = Stats::default();
    for (((analysis, _), slots), outcome) in runs.into_iter().zip(outcomes) {
        // Runs start in order and stop after a failure: the first missing
        // outcome comes after the failed one, which `?` has returned.
        let outcome = outcome.expect("runs before a failure all ran")?;
        let (entry, figs) = match outcome {
            Outcome::Skipped(entry, figs) => (entry, figs),
            Outcome::Ran { entry, figs, cached, .. } => {
                stats.runs += 1;
                stats.cached_runs += usize::from(cached);
                (entry, figs)
            }
        };
        place(reports, plan, data, &entry, &analysis, slots, figs);
    }
    for r in reports.iter_mut() {
        r.figures.sort_by_key(|f| figure_index(r.spec, &f.id));
    }
    Ok(stats)
}

/// The declared peak memory of a run of `analysis` over the report's store,
/// as things stand (a PAI analysis counts the PAI derived-frame build until
/// it is done).
fn estimate(analysis: &str, data: &Data) -> u64 {
    spec::find(analysis).map_or(Memory::SMALL, |a| a.memory_now(&data.store))
}

/// What one run gave.
enum Outcome {
    /// It reads a trace the report lacks: its figures are skipped.
    Skipped(RunEntry, Vec<FigureOut>),
    Ran {
        entry: RunEntry,
        figs: Vec<FigureOut>,
        cached: bool,
        seconds: f64,
    },
}

/// Why a run cannot be made: its `trace` parameter (`helios`,
/// `helios:Venus`) names a trace the report lacks. Views that take the
/// trace as a parameter (the `sim.*` replays) read that trace's tables, so
/// unlike a series of a cross-trace figure there is nothing to leave out:
/// the run and its figures are skipped.
fn replays_a_missing_trace(params: &[(String, String)], data: &Data) -> Option<String> {
    let (_, value) = params.iter().find(|(k, _)| k == "trace")?;
    let (name, cluster) = value.split_once(':').map_or((value.as_str(), None), |(n, c)| (n, Some(c)));
    if let Some((t, why)) = data.missing.iter().find(|(t, _)| t.name() == name) {
        return Some(format!("it reads {value}, which this report lacks: {} ({why})", t.name()));
    }
    let (c, why) = data.missing_clusters.iter().find(|(c, _)| Some(c.as_str()) == cluster)?;
    Some(format!("it reads {value}, which this report lacks: {} ({why})", crate::inputs::cluster_name(c)))
}

/// Analysis runs (id, given parameters) in first-use order, each with the
/// figures that draw it.
fn group_runs(plan: &Plan, reports: &[SpecReport]) -> Vec<(RunKey, Vec<Slot>)> {
    let mut runs: Vec<(RunKey, Vec<Slot>)> = Vec::new();
    for (si, _) in reports.iter().enumerate().filter(|(_, r)| r.skipped.is_none()) {
        for (fi, fig) in plan.specs[si].body.figures.iter().enumerate() {
            let f = fig.get_ref();
            let run = (f.analysis.get_ref().clone(), full_params(f));
            match runs.iter_mut().find(|(k, _)| *k == run) {
                Some((_, slots)) => slots.push((si, fi)),
                None => runs.push((run, vec![(si, fi)])),
            }
        }
    }
    runs
}

/// The figure's parameters with the analysis's defaults filled in, so that
/// `bin=5m` and no `bin` share one run.
fn full_params(f: &FigureSpec) -> Vec<(String, String)> {
    let analysis = spec::analysis_of(f);
    tracelab_analysis::Args::validate(analysis, &params_of(f)).map_or_else(|_| params_of(f), |a| a.pairs())
}

type RunResult = (RunEntry, Vec<FigureOut>, bool);

/// What one analysis run needs.
struct Run<'a> {
    plan: &'a Plan,
    data: &'a Data,
    cache: &'a Cache,
    ctx: &'a Ctx,
}

impl Run<'_> {
    /// The run's figures: skipped when it reads a trace the report lacks,
    /// else from the cache or by running the analysis.
    fn outcome(&self, (analysis, params): (&str, &[(String, String)]), slots: &[Slot]) -> Result<Outcome> {
        let started = Instant::now();
        if let Some(why) = replays_a_missing_trace(params, self.data) {
            let entry = RunEntry {
                title: String::new(),
                definition: String::new(),
                params: params.to_vec(),
                headlines: Vec::new(),
            };
            let skipped = || FigureOut { rendered: Rendered::Skipped(why.clone()), csv: None, notes: Vec::new() };
            return Ok(Outcome::Skipped(entry, slots.iter().map(|_| skipped()).collect()));
        }
        let key = self.cache.run_key(analysis, params);
        let (entry, figs, cached) = self.run_or_reuse((analysis, params), slots, &key)?;
        Ok(Outcome::Ran { entry, figs, cached, seconds: started.elapsed().as_secs_f64() })
    }

    /// The run's entry and its figures, from the cache when all are there,
    /// else by running the analysis once.
    fn run_or_reuse(
        &self,
        (analysis, params): (&str, &[(String, String)]),
        slots: &[Slot],
        key: &str,
    ) -> Result<RunResult> {
        let fig_keys: Vec<String> =
            slots.iter().map(|&(s, f)| self.cache.fig_key(key, figure_source(self.plan, s, f))).collect();
        if let Some(entry) = self.cache.get_run(key) {
            let figs: Option<Vec<FigureOut>> = fig_keys.iter().map(|k| self.cache.get_fig(k)).collect();
            if let Some(figs) = figs {
                return Ok((entry, figs, true));
            }
        }
        let a = spec::find(analysis)?;
        let out = a.run(self.ctx, params).map_err(|e| context(analysis, e))?;
        let entry = RunEntry {
            title: out.title.clone(),
            definition: out.definition.clone(),
            params: out.params.clone(),
            headlines: out.all_headlines().map(|h| HeadlineRow::new(analysis, h)).collect(),
        };
        let mut figs = Vec::new();
        for (&(s, f), k) in slots.iter().zip(&fig_keys) {
            let spec = &self.plan.specs[s];
            let fig = spec.body.figures[f].get_ref();
            let env = self.env(spec, &entry);
            let r = figure::render(fig, &out, &env).map_err(|e| {
                let msg = e.to_string();
                // A series the part lacks is the `series` line's fault.
                let series = fig.series.as_ref().filter(|_| msg.contains(": no series `") || msg.contains(" value `"));
                spec.error_at(series.map_or_else(|| spec.body.figures[f].span(), toml::Spanned::span), &msg)
            })?;
            self.cache.put_fig(k, &r);
            figs.push(r);
        }
        self.cache.put_run(key, &entry);
        Ok((entry, figs, false))
    }

    fn env(&self, spec: &Spec, entry: &RunEntry) -> Env {
        let params: Vec<String> = entry.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let params = if params.is_empty() { String::new() } else { format!(" Parameters: {}.", params.join(", ")) };
        let traces = self.data.missing.iter().map(|(t, why)| (t.name().to_string(), why.clone()));
        Env {
            present: self.data.present.clone(),
            missing: traces.chain(self.data.missing_clusters.iter().cloned()).collect(),
            source: source_line(&self.data.traces, &spec.body.traces),
            definition: format!("{}{params}", entry.definition),
            markers: markers(&self.data.traces),
        }
    }
}

fn context(analysis: &str, e: Error) -> Error {
    match e {
        Error::Usage(m) => Error::Usage(format!("{analysis}: {m}")),
        other => other,
    }
}

/// The spec text of one figure (its cache identity).
fn figure_source(plan: &Plan, s: usize, f: usize) -> &str {
    let spec = &plan.specs[s];
    let span = spec.body.figures[f].span();
    spec.source.get(span).unwrap_or_default()
}

fn place(
    reports: &mut [SpecReport],
    plan: &Plan,
    data: &Data,
    entry: &RunEntry,
    analysis: &str,
    slots: Vec<Slot>,
    figs: Vec<FigureOut>,
) {
    let markers = markers(&data.traces);
    for ((s, f), out) in slots.into_iter().zip(figs) {
        let spec = &plan.specs[s];
        let fig = spec.body.figures[f].get_ref();
        let path = |ext: &str| format!("{}/{}.{ext}", spec.body.id, fig.id);
        let file = matches!(out.rendered, Rendered::Svg(_)).then(|| path("svg"));
        reports[s].figures.push(FigureReport {
            id: fig.id.clone(),
            title: fig.title.clone(),
            mirrors: fig.mirrors.clone(),
            caption: fig.caption.clone(),
            analysis: analysis.to_string(),
            params: entry.params.clone(),
            part: fig.part.clone(),
            definition: entry.definition.clone(),
            notes: out.notes,
            rendered: out.rendered,
            file,
            csv: out.csv.map(|text| (path("csv"), text)),
            size: fig.size.map_or(tracelab_plot::DEFAULT_SIZE, |[w, h]| (w, h)),
            calibrated: figure_calibrated(analysis, &markers),
        });
        let r = &mut reports[s];
        for h in &entry.headlines {
            if !r.headlines.iter().any(|x| x.analysis == h.analysis && x.key == h.key) {
                r.headlines.push(h.clone());
            }
        }
    }
}

fn figure_index(spec: &Spec, id: &str) -> usize {
    spec.body.figures.iter().position(|f| f.get_ref().id == id).unwrap_or(usize::MAX)
}
