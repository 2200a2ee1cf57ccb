//! `spot.class-mix`: the HP / Spot mix of the spot-GPU trace, by jobs and
//! by GPU-hours asked, in all and per GPU model (GFS §2's setting: HP jobs
//! with strict SLOs beside preemptible Spot jobs).

use polars::prelude::*;

use super::{jobs, model_order, pct, CLASSES};
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct ClassMix;

impl Analyze for ClassMix {
    type Params = ();
    const ABOUT: About = About {
        id: "spot.class-mix",
        scope: Scope::Spot,
        mirrors: "GFS (ASPLOS'26) Sec 2 (HP and Spot jobs of the trace)",
        summary: "HP and Spot jobs: counts and GPU-hours, in all and per GPU model",
        title: "HP and Spot jobs",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors GFS Sec 2 (the HP and Spot jobs the paper's design rests on).

- **Computes,** per class: jobs and share, GPU-hours asked (workers × `gpu_request` ×
  `duration_s` / 3600) and share, mean workers, organizations; part `by-model`: the same per GPU
  model, shares within the model.
- **Headlines:** `<class>.jobs_pct`, `<class>.gpu_hours_pct`.
- **Published:** none.
- **Differences:** none.
"##;

    fn definition(_: &()) -> String {
        "spot/jobs by job_type (HP, Spot): jobs = count, jobs_pct its share; gpu_hours = sum of workers x gpu_request x duration / 3600 (the GPU-hours the jobs asked for as recorded; a job that was preempted ran longer in wall time), gpu_hours_pct its share; workers_mean; organizations = distinct organizations with a job of the class. Table by-model: the same per GPU model, shares within the model.".into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let aggs = || {
            [
                len().cast(DataType::Int64).alias("n"),
                (col("gpus") * col("duration_s") / lit(3600.0)).sum().alias("gh"),
                col("workers").cast(DataType::Float64).mean().alias("w"),
                col("organization").n_unique().cast(DataType::Int64).alias("orgs"),
            ]
        };
        let df = collect(jobs(ctx)?.group_by([col("job_type")]).agg(aggs()), "spot class mix")?;
        let (ks, ns, gh, ws, os) =
            (strs(&df, "job_type")?, i64s(&df, "n")?, f64s(&df, "gh")?, f64s(&df, "w")?, i64s(&df, "orgs")?);
        let (total_n, total_h) = (ns.iter().flatten().sum::<i64>() as f64, gh.iter().flatten().sum::<f64>());
        let mut t = ResultTable::new(&[
            "class",
            "jobs",
            "jobs_pct",
            "gpu_hours",
            "gpu_hours_pct",
            "workers_mean",
            "organizations",
        ]);
        let mut heads = Vec::new();
        for class in CLASSES {
            let Some(i) = ks.iter().position(|k| k.as_deref() == Some(class)) else { continue };
            let (n, h) = (ns[i].unwrap_or(0), gh[i].unwrap_or(0.0));
            let (np, hp) = (pct(n as f64, total_n), pct(h, total_h));
            t.push(vec![
                class.into(),
                Cell::Int(n),
                np.into(),
                h.into(),
                hp.into(),
                Cell::from(ws[i]),
                Cell::from(os[i]),
            ]);
            heads.push(Headline::new(&format!("{class}.jobs_pct"), &format!("{class} share of jobs"), np, "%"));
            heads.push(Headline::new(
                &format!("{class}.gpu_hours_pct"),
                &format!("{class} share of GPU-hours asked"),
                hp,
                "%",
            ));
        }
        out.table("by-class", t);
        out.table("by-model", by_model(ctx, aggs())?);
        out.headlines("summary", heads);
        Ok(())
    }
}

fn by_model(ctx: &Ctx, aggs: [Expr; 4]) -> Result<ResultTable> {
    let df = collect(jobs(ctx)?.group_by([col("gpu_model"), col("job_type")]).agg(aggs), "spot class mix by model")?;
    let (ms, ks, ns, gh) = (strs(&df, "gpu_model")?, strs(&df, "job_type")?, i64s(&df, "n")?, f64s(&df, "gh")?);
    let mut t = ResultTable::new(&["gpu_model", "class", "jobs", "jobs_pct", "gpu_hours", "gpu_hours_pct"]);
    for m in model_order(ms.iter().flatten().cloned().collect()) {
        let rows: Vec<usize> = (0..df.height()).filter(|&i| ms[i].as_deref() == Some(m.as_str())).collect();
        let n_all: i64 = rows.iter().map(|&i| ns[i].unwrap_or(0)).sum();
        let h_all: f64 = rows.iter().map(|&i| gh[i].unwrap_or(0.0)).sum();
        for class in CLASSES {
            let Some(&i) = rows.iter().find(|&&i| ks[i].as_deref() == Some(class)) else { continue };
            let (n, h) = (ns[i].unwrap_or(0), gh[i].unwrap_or(0.0));
            t.push(vec![
                m.as_str().into(),
                class.into(),
                Cell::Int(n),
                pct(n as f64, n_all as f64).into(),
                h.into(),
                pct(h, h_all).into(),
            ]);
        }
    }
    Ok(t)
}
