//! `acme.type-mix`: the mix of LLM workload types among GPU jobs, by job
//! count and by GPU time, per cluster (NSDI'24 Fig 3, the notebook's
//! `treemap_job_dist`).

use polars::prelude::*;

use super::{jobs, pct, selected_clusters, Clusters, CLUSTER, TYPES};
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Cell, Headline, Output, ResultTable};
use crate::params::params;
use crate::Ctx;
use tracelab_schema::error::Result;

params! {
    pub struct MixParams {
        pub cluster: Clusters = CLUSTER,
    }
}

pub struct TypeMix;

impl Analyze for TypeMix {
    type Params = MixParams;
    const ABOUT: About = About {
        id: "acme.type-mix",
        scope: Scope::Acme,
        mirrors: "NSDI'24 Fig 3 (analysis.ipynb treemap_job_dist)",
        summary: "Workload types of GPU jobs by count and by GPU time, per cluster",
        title: "LLM workload types",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'24 Fig 3, notebook `treemap_job_dist`.

- **Computes,** per cluster, over GPU jobs grouped by workload type: jobs and their share, and the
  sum of the raw `gpu_time` (duration × gpu_num, GPU-seconds; Kalos over end − submit) and its
  share. Types in the notebook's order: Eval, Pretrain, SFT, MLLM, Debug, Other.
- **Output:** part `mix` (table), headlines `<cluster>.<type>.jobs_pct` and `.gpu_time_pct`.
- **Published:** none (the paper prints the shares only in a treemap image).
- **Differences:** none.
"##;

    fn definition(_: &MixParams) -> String {
        "Per cluster, acme/jobs GPU jobs (gpus > 0) grouped by workload type (Eval, Pretrain, SFT, MLLM, Debug, Other; the README's Evaluation counted as Eval): jobs = count, jobs_pct = 100 * jobs / all GPU jobs of the cluster; gpu_time_s = sum of the raw gpu_time column (duration x gpu_num, GPU-seconds; Kalos' duration is end - submit), gpu_time_pct its share, as the notebook's treemap. The paper prints these shares only as an image.".into()
    }

    fn run(ctx: &Ctx, p: &MixParams, out: &mut Output) -> Result<()> {
        let clusters = selected_clusters(ctx, p.cluster)?;
        let lf = jobs(ctx)?
            .filter(col("gpus").gt(lit(0)))
            .group_by([col("cluster"), col("kind")])
            .agg([len().cast(DataType::Int64).alias("n"), col("gpu_time_s").sum().alias("gt")]);
        let df = collect(lf, "acme type mix")?;
        let (cs, ks, ns, ts) = (strs(&df, "cluster")?, strs(&df, "kind")?, i64s(&df, "n")?, f64s(&df, "gt")?);
        let mut t = ResultTable::new(&["cluster", "type", "jobs", "jobs_pct", "gpu_time_s", "gpu_time_pct"]);
        let mut heads = Vec::new();
        for c in &clusters {
            let rows: Vec<usize> = (0..df.height()).filter(|&i| cs[i].as_deref() == Some(c.as_str())).collect();
            let jobs: i64 = rows.iter().map(|&i| ns[i].unwrap_or(0)).sum();
            let time: f64 = rows.iter().map(|&i| ts[i].unwrap_or(0.0)).sum();
            let mut kinds: Vec<String> = rows.iter().filter_map(|&i| ks[i].clone()).collect();
            kinds.sort_by_key(|k| (TYPES.iter().position(|t| t == k).unwrap_or(TYPES.len()), k.clone()));
            for k in kinds {
                let i = *rows.iter().find(|&&i| ks[i].as_deref() == Some(k.as_str())).expect("a row of the type");
                let (n, gt) = (ns[i].unwrap_or(0), ts[i].unwrap_or(0.0));
                let (np, gp) = (pct(n as f64, jobs as f64), pct(gt, time));
                t.push(vec![c.as_str().into(), k.as_str().into(), Cell::Int(n), np.into(), gt.into(), gp.into()]);
                heads.push(Headline::new(&format!("{c}.{k}.jobs_pct"), &format!("{c} {k} share of GPU jobs"), np, "%"));
                heads.push(Headline::new(
                    &format!("{c}.{k}.gpu_time_pct"),
                    &format!("{c} {k} share of GPU time"),
                    gp,
                    "%",
                ));
            }
        }
        out.table("mix", t);
        out.headlines("summary", heads);
        Ok(())
    }
}
