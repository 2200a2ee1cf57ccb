//! `seed.muxflow-predictability`: MuxFlow (Zhao et al. 2023) schedules
//! offline work into online GPUs because cluster utilization is "smooth
//! within minutes, periodic over days". Per trace, on the series of
//! [`super::muxflow_series`]: the diurnal profile and its peak/trough
//! ratio, the autocorrelation at 1 hour and 1 day, and the MAPE of three
//! simple forecasters (last value, same time yesterday, EWMA) at a short
//! and a long horizon, all scored on the same targets.

use std::ops::Bound;

use super::muxflow_series::{series, Series};
use super::notes::Notes;
use super::{duration_text, present, Traces, ALL_TRACES};
use crate::declare::{About, Analyze, Memory, Scope};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::{params, Param, Seconds};
use crate::Ctx;
use tracelab_schema::error::{Error, Result};
use tracelab_stats::{autocorrelation, forecasts, mape, Forecaster};

const BIN: Param<Seconds> = Param::duration("bin", "5m", "series bin; must divide 1h");
const SHORT: Param<Seconds> = Param::duration("short", "5m", "short forecast horizon (a multiple of bin)");
const LONG: Param<Seconds> = Param::duration("long", "1h", "long forecast horizon (a multiple of bin, at most 1d)");
const ALPHA: Param<f64> =
    Param::number_in("alpha", "0.3", "EWMA smoothing factor in (0, 1]", Bound::Excluded(0.0), Bound::Included(1.0));

params! {
    pub struct PredictabilityParams {
        pub trace: Traces = ALL_TRACES,
        pub bin: Seconds = BIN,
        pub short: Seconds = SHORT,
        pub long: Seconds = LONG,
        pub alpha: f64 = ALPHA,
    }
}

pub struct MuxflowPredictability;

impl Analyze for MuxflowPredictability {
    type Params = PredictabilityParams;
    /// Peak 0.53 GB over the 7.18 M instances of the full-scale synthetic trace.
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::pai::INSTANCE, 75);
    const ABOUT: About = About {
        id: "seed.muxflow-predictability",
        scope: Scope::Cross,
        mirrors: "MuxFlow (Zhao et al. 2023) motivation: utilization is smooth within minutes, periodic over days",
        summary: "Cluster utilization series per trace: diurnal profile, autocorrelation at 1 h / 1 d, forecaster MAPE",
        title: "Cluster utilization: diurnal and predictable?",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors the MuxFlow motivation: cluster utilization is "smooth within minutes, periodic over days".

- **Series** (one per trace, bins of `bin` aligned to the UTC epoch, from the first to the last bin
  any row covers): PAI = 100 × Σ `gpu_wrk_util_pct`/100 (null counts 0) over the sensor rows whose
  worker's `dfiw` `[start, end)` overlaps the bin (the covering rule of
  [pai.machine-util](#paimachine-util)) / the GPUs of every machine in `machine_spec`. Philly = mean of
  every non-null GPU reading of `philly/gpu_util` in the bin (NaN where none). Helios = GPU
  **allocation**, not utilization: 100 × GPUs of GPU jobs covering the bin / the day's GPUs over all
  clusters and VCs (`helios/vc_gpus`, Asia/Shanghai day), capped at 100.
- **Diurnal** (part `diurnal`): mean per local hour (PAI and Helios Asia/Shanghai, Philly
  America/Los_Angeles); peak/trough = largest / smallest hourly mean.
- **Autocorrelation** at lag k: Pearson r of x[t] and x[t+k] over the pairs with both finite (pandas
  `Series.autocorr`), k = 1 h and 1 day.
- **Forecasts** of x[t] from the origin t − h, h = `short` and `long`: last value x[t−h]; same time
  yesterday x[t − 1 day]; EWMA s[t−h] with s[i] = α x[i] + (1−α) s[i−1] from the first finite value,
  NaN bins skipped. **MAPE** = 100 × mean |forecast − x| / x over the common targets: bins at least
  one day after the first, x finite and non-zero, every forecast finite.
- **Verdicts** (table `summary`): *smooth within minutes* = last-value MAPE at `short` below 10 %;
  *periodic over days* = autocorrelation at 1 day ≥ 0.5. Table `forecast-errors` has every MAPE with
  the number of targets; headlines per trace: both autocorrelations and the peak/trough ratio.
- **Published:** no numbers; the claim is qualitative.
"##;

    fn definition(p: &PredictabilityParams) -> String {
        definition(p)
    }

    fn run(ctx: &Ctx, p: &PredictabilityParams, out: &mut Output) -> Result<()> {
        predictability(ctx, p, out)
    }
}

/// "Smooth within minutes": last-value MAPE at the short horizon below
/// this (%); "periodic over days": autocorrelation at 1 day at least this.
const SMOOTH_MAPE: f64 = 10.0;
const PERIODIC_ACF: f64 = 0.5;
const DAY_S: i64 = 86_400;

/// The horizons and smoothing, in bins.
struct Plan {
    bin_s: i64,
    horizons: [(String, usize); 2],
    alpha: f64,
}

/// The bin must divide an hour and each horizon be a multiple of the bin
/// of at most a day (the diurnal profile and the day-lag forecaster count
/// whole bins); checked before any work.
fn plan(p: &PredictabilityParams) -> Result<Plan> {
    let bin_s = p.bin.0;
    let bad = |m: String| Error::Usage(format!("seed.muxflow-predictability: {m}"));
    if 3600 % bin_s != 0 {
        return Err(bad(format!("--param bin={}: must divide 1h", duration_text(p.bin))));
    }
    let horizon = |name: &str, h: Seconds| -> Result<(String, usize)> {
        if h.0 % bin_s != 0 || h.0 > DAY_S {
            return Err(bad(format!("--param {name}={}: must be a multiple of bin, at most 1d", duration_text(h))));
        }
        Ok((duration_text(h), (h.0 / bin_s) as usize))
    };
    Ok(Plan { bin_s, horizons: [horizon("short", p.short)?, horizon("long", p.long)?], alpha: p.alpha })
}

/// The forecasters in output order.
fn forecasters(day_bins: usize, alpha: f64) -> [(&'static str, Forecaster); 3] {
    [
        ("last value", Forecaster::LastValue),
        ("same time yesterday", Forecaster::SamePeriodBefore(day_bins)),
        ("ewma", Forecaster::Ewma(alpha)),
    ]
}

fn predictability(ctx: &Ctx, p: &PredictabilityParams, out: &mut Output) -> Result<()> {
    let plan = plan(p)?;
    let (mut curves, mut diurnal, mut heads, mut notes) = (Vec::new(), Vec::new(), Vec::new(), Notes::default());
    let mut summary = ResultTable::new(&[
        "trace",
        "series",
        "bins",
        "acf_1h",
        "acf_1d",
        "peak_trough",
        "smooth_within_minutes",
        "periodic_over_days",
    ]);
    let mut errors = ResultTable::new(&["trace", "horizon", "forecaster", "mape_pct", "targets"]);
    for trace in p.trace.selected() {
        if !present(ctx, trace) {
            notes.missing(trace);
            continue;
        }
        let Some(s) = series(ctx, trace, plan.bin_s)? else {
            notes.add(trace.name(), "no interval covers any bin");
            continue;
        };
        let view = View::of(&s, &plan);
        heads.extend(view.headlines());
        summary.push(view.summary_row());
        view.error_rows().into_iter().for_each(|r| errors.push(r));
        curves.push((
            trace.name().to_string(),
            s.values.iter().enumerate().map(|(i, v)| (i as f64 * s.bin_s as f64 / 3600.0, *v)).collect(),
        ));
        diurnal.push((trace.name().to_string(), view.hourly.iter().enumerate().map(|(h, v)| (h as f64, *v)).collect()));
    }
    out.curves("series", "Hours since the first bin", "Utilization or allocation (%)", curves)
        .curves("diurnal", "Local hour of day", "Mean over the trace (%)", diurnal)
        .table("summary", summary)
        .table("forecast-errors", errors)
        .headlines("headlines", heads)
        .table("notes", notes.table());
    Ok(())
}

/// Per horizon: (label, per forecaster (name, MAPE), targets scored).
type HorizonErrors = (String, Vec<(&'static str, Option<f64>)>, usize);

/// Everything measured on one series.
struct View<'a> {
    s: &'a Series,
    hourly: Vec<f64>,
    acf: (Option<f64>, Option<f64>),
    errors: Vec<HorizonErrors>,
}

impl<'a> View<'a> {
    fn of(s: &'a Series, plan: &Plan) -> View<'a> {
        let (hour_bins, day_bins) = ((3600 / s.bin_s) as usize, (DAY_S / s.bin_s) as usize);
        let acf = (autocorrelation(&s.values, hour_bins), autocorrelation(&s.values, day_bins));
        let errors = plan
            .horizons
            .iter()
            .map(|(label, h)| {
                let (scores, n) = scored(&s.values, *h, &forecasters(day_bins, plan.alpha), day_bins);
                (label.clone(), scores, n)
            })
            .collect();
        View { s, hourly: hourly_means(s), acf, errors }
    }

    fn peak_trough(&self) -> f64 {
        let finite: Vec<f64> = self.hourly.iter().copied().filter(|v| v.is_finite()).collect();
        let (lo, hi) = finite.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
        if lo > 0.0 && hi.is_finite() {
            hi / lo
        } else {
            f64::NAN
        }
    }

    fn smooth(&self) -> Option<bool> {
        let last = self.errors.first()?.1.first()?.1?;
        Some(last < SMOOTH_MAPE)
    }

    fn summary_row(&self) -> Vec<Cell> {
        let yes_no = |b: Option<bool>| Cell::from(b.map(|b| if b { "yes" } else { "no" }));
        vec![
            self.s.trace.name().into(),
            self.s.what.into(),
            (self.s.values.len() as i64).into(),
            self.acf.0.into(),
            self.acf.1.into(),
            self.peak_trough().into(),
            yes_no(self.smooth()),
            yes_no(self.acf.1.map(|r| r >= PERIODIC_ACF)),
        ]
    }

    fn error_rows(&self) -> Vec<Vec<Cell>> {
        let mut rows = Vec::new();
        for (label, scores, n) in &self.errors {
            for (name, m) in scores {
                rows.push(vec![
                    self.s.trace.name().into(),
                    label.as_str().into(),
                    (*name).into(),
                    (*m).into(),
                    (*n as i64).into(),
                ]);
            }
        }
        rows
    }

    fn headlines(&self) -> Vec<Headline> {
        let t = self.s.trace.name();
        let nan = |v: Option<f64>| v.unwrap_or(f64::NAN);
        vec![
            Headline::new(&format!("{t}_acf_1h"), &format!("{t}: autocorrelation at 1 h"), nan(self.acf.0), ""),
            Headline::new(&format!("{t}_acf_1d"), &format!("{t}: autocorrelation at 1 day"), nan(self.acf.1), ""),
            Headline::new(&format!("{t}_peak_trough"), &format!("{t}: diurnal peak / trough"), self.peak_trough(), "x"),
        ]
    }
}

/// Mean of the finite values per local hour 0..23 (NaN for an hour with
/// none).
fn hourly_means(s: &Series) -> Vec<f64> {
    let mut acc = [(0.0f64, 0usize); 24];
    for (h, v) in s.local_hours().into_iter().zip(&s.values) {
        if v.is_finite() {
            acc[h as usize].0 += v;
            acc[h as usize].1 += 1;
        }
    }
    acc.iter().map(|(sum, n)| if *n > 0 { sum / *n as f64 } else { f64::NAN }).collect()
}

/// MAPE of every forecaster at `horizon` over the common targets: bins
/// t >= `day_bins` with a finite, non-zero value where every forecast is
/// finite; and the number of such targets.
fn scored(
    x: &[f64],
    horizon: usize,
    fs: &[(&'static str, Forecaster)],
    day_bins: usize,
) -> (Vec<(&'static str, Option<f64>)>, usize) {
    let all: Vec<Vec<f64>> = fs.iter().map(|(_, f)| forecasts(x, horizon, *f)).collect();
    let targets: Vec<usize> = (day_bins..x.len())
        .filter(|&t| x[t].is_finite() && x[t] != 0.0 && all.iter().all(|p| p[t].is_finite()))
        .collect();
    let scores = fs
        .iter()
        .zip(&all)
        .map(|((name, _), p)| {
            let pairs: Vec<(f64, f64)> = targets.iter().map(|&t| (x[t], p[t])).collect();
            (*name, mape(&pairs))
        })
        .collect();
    (scores, targets.len())
}

fn definition(p: &PredictabilityParams) -> String {
    format!(
        "One regular series per trace, bins of {bin} aligned to the UTC epoch, from the first to the last bin any \
         row covers. PAI: 100 x sum over pai/sensor rows covering the bin (the worker's dfiw [start, end) overlaps \
         it) of gpu_wrk_util_pct/100 (null counts 0), over the GPUs of every machine in machine_spec (lifetime averages spread over the \
         instance's life: the trace has no time series). Philly: mean of every non-null GPU reading of \
         philly/gpu_util in the bin; NaN where none. Helios: ALLOCATION, not utilization: 100 x GPUs of GPU jobs \
         covering the bin / the day's GPUs over all clusters and VCs (helios/vc_gpus, Asia/Shanghai day), capped at \
         100. Diurnal: mean per local hour (PAI, Helios Asia/Shanghai; Philly America/Los_Angeles); peak/trough = \
         largest / smallest hourly mean. Autocorrelation at lag k: Pearson r of x[t] and x[t+k] over pairs with both \
         finite (pandas Series.autocorr), k = 1h and 1d. Forecasts of x[t] from the origin t - h (h = {short}, \
         {long}): last value x[t-h]; same time yesterday x[t-1d]; EWMA s[t-h], s[i] = {alpha} x[i] + (1 - {alpha}) \
         s[i-1] from the first finite value, NaN bins skipped. MAPE = 100 x mean |forecast - x| / x over the common \
         targets: t at least one day after the first bin, x[t] finite and non-zero, every forecast finite. Verdicts: \
         smooth within minutes = last-value MAPE at {short} below {SMOOTH_MAPE} %; periodic over days = \
         autocorrelation at 1 day at least {PERIODIC_ACF}.",
        bin = duration_text(p.bin),
        short = duration_text(p.short),
        long = duration_text(p.long),
        alpha = p.alpha,
    )
}
