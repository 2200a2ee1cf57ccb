//! Sample charts shaped like the papers' figures (CDFs on log and symlog
//! axes, CCDFs, status shares, per-VC bars, hourly boxes, a twin-axis time
//! series, a machine x time heat map), built from formulas and a tiny LCG
//! so they are the same on every run. Used by the tests and the gallery.

use crate::*;

/// Park-Miller LCG in [0, 1): deterministic noise without a dependency.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Lcg {
        Lcg(seed.max(1))
    }

    pub fn next(&mut self) -> f64 {
        self.0 = self.0 * 48271 % 2147483647;
        self.0 as f64 / 2147483647.0
    }
}

/// A log-logistic CDF: median `m` seconds, spread `s` decades.
fn cdf_points(m: f64, s: f64) -> Vec<(f64, f64)> {
    (0..=200)
        .map(|i| {
            let x = 10f64.powf(i as f64 * 6.0 / 200.0);
            (x, 1.0 / (1.0 + (-(x.log10() - m.log10()) / s).exp()))
        })
        .collect()
}

pub fn cdf_log() -> Chart {
    let x = Axis::log("Job duration").format(TickFormat::Duration);
    let y = Axis::linear("Fraction of jobs").range(0.0, 1.0).format(TickFormat::Percent);
    let mut c = Chart::new(Kind::Step, x, y);
    c.series = vec![
        Series::points("PAI", cdf_points(300.0, 0.45)),
        Series::points("Philly", cdf_points(3000.0, 0.5)),
        Series::points("Helios", cdf_points(900.0, 0.6)),
    ];
    c
}

pub fn ccdf_loglog() -> Chart {
    let x = Axis::log("GPU time (GPU-hours)");
    let y = Axis::log("Fraction of jobs (CCDF)");
    let mut c = Chart::new(Kind::Line, x, y);
    let tail = |alpha: f64| (0..=60).map(move |i| (10f64.powf(i as f64 / 10.0), 10f64.powf(-alpha * i as f64 / 10.0)));
    c.series = vec![
        Series::points("alpha = 1.0", tail(1.0).collect()),
        Series::points("alpha = 0.8", tail(0.8).collect()),
        Series::points("alpha = 1.2", tail(1.2).filter(|p| p.1 >= 1e-6).collect()),
    ];
    c
}

pub fn symlog_wait() -> Chart {
    let x = Axis::symlog("Queueing delay (s)", 1.0);
    let y = Axis::linear("CDF").range(0.0, 1.0);
    let mut c = Chart::new(Kind::Step, x, y);
    let mut pts = vec![(0.0, 0.35)];
    pts.extend(cdf_points(60.0, 0.7).into_iter().map(|(x, f)| (x, 0.35 + 0.65 * f)).filter(|p| p.0 <= 2e5));
    c.series = vec![Series::points("all jobs", pts)];
    c
}

pub fn bars_grouped() -> Chart {
    let mut c = Chart::new(
        Kind::Bars { horizontal: false, mode: BarMode::Grouped },
        Axis::category("GPU type"),
        Axis::linear("Jobs (thousands)"),
    );
    let cats = ["V100", "P100", "T4", "MISC"];
    let vals = [[42.0, 18.5, 7.2, 3.1], [12.0, 30.0, 0.0, 8.0], [25.0, 5.0, 19.0, 2.0]];
    for (name, v) in ["PAI", "Philly", "Helios"].iter().zip(vals) {
        c.series.push(Series::bars(*name, cats.iter().map(std::string::ToString::to_string).zip(v).collect()));
    }
    c
}

pub fn bars_stacked() -> Chart {
    let mut c = Chart::new(
        Kind::Bars { horizontal: false, mode: BarMode::Stacked },
        Axis::category("Trace"),
        Axis::linear("Share of jobs").range(0.0, 1.0).format(TickFormat::Percent),
    );
    let traces = ["PAI", "Philly", "Helios"];
    let shares = [("Completed", [0.78, 0.59, 0.65]), ("Failed", [0.13, 0.29, 0.11]), ("Killed", [0.09, 0.12, 0.24])];
    for (status, v) in shares {
        c.series.push(Series::bars(status, traces.iter().map(std::string::ToString::to_string).zip(v).collect()));
    }
    c.legend = Legend::Below;
    c
}

pub fn bars_horizontal() -> Chart {
    let mut c = Chart::new(
        Kind::Bars { horizontal: true, mode: BarMode::Grouped },
        Axis::linear("GPU utilization").range(0.0, 1.0).format(TickFormat::Percent),
        Axis::category("Virtual cluster"),
    );
    let vcs = ["vc-6214e9", "vc-ee9e8c-research-nlp-large-models", "vc-b436b2", "vc-e8bb2e-speech", "vc-2a6b6d"];
    let util = [0.62, 0.41, 0.77, 0.18, 0.55];
    c.series.push(Series::bars("utilization", vcs.iter().map(std::string::ToString::to_string).zip(util).collect()));
    c
}

pub fn long_categories() -> Chart {
    let mut c = Chart::new(
        Kind::Bars { horizontal: false, mode: BarMode::Grouped },
        Axis::category("Workload tag"),
        Axis::linear("Instances"),
    );
    let names = [
        "ctr-training",
        "bert-pretraining-large",
        "resnet50-imagenet",
        "graph-learning",
        "speech-recognition-transformer",
        "recommendation",
        "object-detection",
        "gnn",
        "reinforcement-learning-simulation",
        "nmt",
        "ocr",
        "unknown",
    ];
    let mut rng = Lcg::new(7);
    c.series
        .push(Series::bars("", names.iter().map(|n| (n.to_string(), (40.0 + rng.next() * 860.0).round())).collect()));
    c
}

pub fn boxes_by_hour() -> Chart {
    let mut c = Chart::new(Kind::Box, Axis::category("Hour of day"), Axis::log("Queueing delay (s)"));
    let mut rng = Lcg::new(3);
    for (label, scale) in [("PAI", 1.0), ("Helios", 3.0)] {
        let boxes = (0..24)
            .map(|h| {
                let busy = 1.0 + 4.0 * (-((h as f64 - 14.0) / 4.0).powi(2)).exp();
                let m = 20.0 * busy * scale * (0.8 + 0.4 * rng.next());
                let b = BoxStats { whisker_lo: m / 20.0, q1: m / 3.0, median: m, q3: m * 3.0, whisker_hi: m * 25.0 };
                (h.to_string(), b)
            })
            .collect();
        c.series.push(Series::boxes(label, boxes));
    }
    c
}

pub fn scatter() -> Chart {
    let mut c = Chart::new(Kind::Scatter, Axis::log("Requested GPUs"), Axis::linear("GPU utilization (%)"));
    let mut rng = Lcg::new(11);
    for (label, shift) in [("single-GPU jobs", 0.0), ("distributed jobs", 20.0)] {
        let pts = (0..150)
            .map(|_| {
                let g = 2f64.powi((rng.next() * 7.0) as i32);
                (g * (0.9 + 0.2 * rng.next()), (shift + 70.0 * rng.next() + 10.0 * rng.next()).min(100.0))
            })
            .collect();
        c.series.push(Series::points(label, pts));
    }
    c
}

pub fn twin_axis() -> Chart {
    let mut c = Chart::new(
        Kind::Line,
        Axis::linear("Time (days)"),
        Axis::linear("Cluster GPU utilization").range(0.0, 1.0).format(TickFormat::Percent),
    );
    c.y2 = Some(Axis::linear("Jobs submitted per hour"));
    let util = (0..24 * 14).map(|h| {
        let t = h as f64 / 24.0;
        (t, 0.55 + 0.25 * (t * std::f64::consts::TAU).sin() * 0.8 + 0.05 * (t * 0.9).cos())
    });
    let jobs = (0..24 * 14).map(|h| {
        let t = h as f64 / 24.0;
        (t, 400.0 + 300.0 * ((t - 0.2) * std::f64::consts::TAU).sin().max(-0.6))
    });
    c.series =
        vec![Series::points("utilization", util.collect()), Series::points("submissions", jobs.collect()).right()];
    c
}

pub fn heat() -> Chart {
    let mut c = Chart::new(Kind::Heat, Axis::linear("Time (h)"), Axis::category("Machine"));
    c.y2 = Some(Axis::linear("GPU utilization").range(0.0, 1.0).format(TickFormat::Percent));
    let mut rng = Lcg::new(5);
    let rows: Vec<String> = (0..40).map(|i| format!("m{i:03}")).collect();
    let cols: Vec<f64> = (0..96).map(|i| i as f64 * 0.25).collect();
    let values = rows
        .iter()
        .enumerate()
        .map(|(r, _)| {
            cols.iter()
                .map(|t| {
                    if r % 13 == 5 && *t > 10.0 && *t < 14.0 {
                        f64::NAN
                    } else {
                        let day = 0.5 + 0.4 * ((t - 6.0) / 24.0 * std::f64::consts::TAU).sin();
                        (day + 0.3 * (rng.next() - 0.5) + if r % 7 == 0 { -0.3 } else { 0.0 }).clamp(0.0, 1.0)
                    }
                })
                .collect()
        })
        .collect();
    c.series = vec![Series::new("utilization", Data::Heat { rows, cols, values })];
    c
}

pub fn many_series() -> Chart {
    let x = Axis::log("Job duration (s)");
    let y = Axis::linear("CDF").range(0.0, 1.0);
    let mut c = Chart::new(Kind::Line, x, y);
    c.series = (0..12).map(|i| Series::points(format!("VC {i}"), cdf_points(30.0 * 1.6f64.powi(i), 0.5))).collect();
    c.legend = Legend::Below;
    c
}

pub fn no_data() -> Chart {
    let mut c = Chart::new(Kind::Step, Axis::log("Job duration (s)"), Axis::linear("CDF"));
    c.series = vec![Series::points("PAI", vec![]), Series::points("Philly", vec![(f64::NAN, 0.5)])];
    c
}

pub fn skipped_values() -> Chart {
    let mut c = cdf_log();
    c.title = Some("Job duration, all traces (with a title)".into());
    c.series[0] = Series::points("PAI", {
        let mut p = vec![(0.0, 0.01), (-3.0, 0.02), (0.0, 0.03), (f64::NAN, 0.04)];
        p.extend(cdf_points(300.0, 0.45));
        p
    });
    c
}

pub fn small() -> Chart {
    let mut c = bars_stacked();
    c.size = (280, 180);
    c
}

/// 12 machines x 24 hours: drawn as rectangles.
pub fn heat_small() -> Chart {
    let mut c = heat();
    let Data::Heat { rows, cols, values } = &c.series[0].data else { unreachable!() };
    let rows = rows[..12].to_vec();
    let cols: Vec<f64> = cols.iter().step_by(4).copied().collect();
    let values = values[..12].iter().map(|r| r.iter().step_by(4).copied().collect()).collect();
    c.series[0].data = Data::Heat { rows, cols, values };
    c
}

/// Heat-map values in [0, 1]: per row a random level, per cell noise
/// around it (rows of machines that are busy or idle for a while).
fn noisy_rows(rng: &mut Lcg, rows: usize, cols: usize) -> Vec<Vec<f64>> {
    (0..rows)
        .map(|_| {
            let base = rng.next();
            (0..cols).map(|_| (base + 0.3 * (rng.next() - 0.5)).clamp(0.0, 1.0)).collect()
        })
        .collect()
}

/// 300 machines x a week of hourly bins: the size the papers' maps reach.
pub fn heat_large() -> Chart {
    let mut c = heat();
    let mut rng = Lcg::new(9);
    let rows: Vec<String> = (0..300).map(|i| format!("worker-{i:03}")).collect();
    let cols: Vec<f64> = (0..168).map(|h| h as f64).collect();
    let values = noisy_rows(&mut rng, rows.len(), cols.len());
    c.x = Axis::linear("Time (h)");
    c.series = vec![Series::new("utilization", Data::Heat { rows, cols, values })];
    c
}

/// 120 machines with 24-character names: the row names thin to every k-th.
pub fn heat_many_rows() -> Chart {
    let mut c = heat();
    let mut rng = Lcg::new(13);
    let rows: Vec<String> = (0..120).map(|i| format!("gpu-node-rack{:02}-slot-{:03}", i / 16, i)).collect();
    let cols: Vec<f64> = (0..96).map(|i| i as f64 * 0.25).collect();
    let values = noisy_rows(&mut rng, rows.len(), cols.len());
    c.series = vec![Series::new("utilization", Data::Heat { rows, cols, values })];
    c
}

/// Many categories under a box plot: names stand upright, every k-th shown.
pub fn boxes_many_categories() -> Chart {
    let mut c = Chart::new(Kind::Box, Axis::category("Virtual cluster"), Axis::log("Queueing delay (s)"));
    let mut rng = Lcg::new(17);
    let boxes = (0..64)
        .map(|i| {
            let m = 10f64.powf(1.0 + 2.0 * rng.next());
            (
                format!("vc-{:06x}", i * 0x2f3b1 % 0xffffff),
                BoxStats { whisker_lo: m / 30.0, q1: m / 4.0, median: m, q3: m * 4.0, whisker_hi: m * 40.0 },
            )
        })
        .collect();
    c.series = vec![Series::boxes("", boxes)];
    c
}

/// A symlog axis 0..1000 with linthresh 0.1: labels 0, 0.1, 1, 10, 100, 1000.
pub fn symlog_small_threshold() -> Chart {
    let x = Axis::symlog("Queueing delay (s)", 0.1);
    let y = Axis::linear("CDF").range(0.0, 1.0);
    let mut c = Chart::new(Kind::Step, x, y);
    let mut pts = vec![(0.0, 0.2)];
    pts.extend(cdf_points(5.0, 0.8).into_iter().map(|(x, f)| (x / 10.0, 0.2 + 0.8 * f)).filter(|p| p.0 <= 1000.0));
    c.series = vec![Series::points("all jobs", pts)];
    c
}

/// Waits that are all 0 on a symlog axis with min 0: drawn on 0..1, not -1..1.
pub fn all_zero_min_zero() -> Chart {
    let x = Axis::linear("Time (days)");
    let y = Axis { min: Some(0.0), ..Axis::symlog("Queueing delay (s)", 1.0) };
    let mut c = Chart::new(Kind::Line, x, y);
    c.series = vec![Series::points("VC a", (0..=14).map(|d| (d as f64, 0.0)).collect())];
    c
}

pub fn all() -> Vec<(&'static str, Chart)> {
    vec![
        ("cdf-log-step", cdf_log()),
        ("ccdf-loglog-line", ccdf_loglog()),
        ("cdf-symlog", symlog_wait()),
        ("bars-grouped", bars_grouped()),
        ("bars-stacked", bars_stacked()),
        ("bars-horizontal", bars_horizontal()),
        ("bars-long-categories", long_categories()),
        ("box-by-hour", boxes_by_hour()),
        ("scatter", scatter()),
        ("twin-axis", twin_axis()),
        ("heat", heat()),
        ("heat-small", heat_small()),
        ("many-series", many_series()),
        ("no-data", no_data()),
        ("skipped-values", skipped_values()),
        ("small", small()),
        ("heat-large", heat_large()),
        ("heat-many-rows", heat_many_rows()),
        ("box-many-categories", boxes_many_categories()),
        ("symlog-small-threshold", symlog_small_threshold()),
        ("all-zero-min-zero", all_zero_min_zero()),
    ]
}
