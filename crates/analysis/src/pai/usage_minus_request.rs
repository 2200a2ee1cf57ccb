//! `pai.usage-minus-request`: (usage - request) / capacity per task, with
//! the plan > usage and plan < usage shares (NSDI'22 Fig 6d, notebook A16:
//! `plan_minus_usg_over_cap_task`).

use polars::prelude::*;

use super::frames;
use super::plans::USAGE_SUMS;
use crate::declare::{About, Analyze, Published, Scope};
use crate::frame::{collect, dist_by_sort, f64s};
use crate::output::{Headline, Output};
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct UsageMinusRequest;

const SOURCE: &str = "notebook A16 printed output";

impl Analyze for UsageMinusRequest {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.usage-minus-request",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 6d (notebook A16)",
        summary: "(usage - request) / capacity per task, with the plan > usage and plan < usage shares",
        title: "Usage minus request, normalized by capacity",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 6d, notebook cell A16.

- **Reads** `dfas`, including the summed capacities of the machines the task's instances ran on.
- **Computes** three gaps per task: (`plan_cpu_pct` − `cpu_usage_pct`) / (100 × `cap_cpu`),
  (`plan_gpu_pct` − `gpu_wrk_util_pct`) / (100 × `cap_gpu`) and (`plan_mem_gib` − `avg_mem_gib`) / `cap_mem_gib`.
  Headlines: for each resource the share of tasks with a positive gap ("plan > usage") and a
  negative gap ("plan < usage"), among tasks whose gap is not null or NaN; exact zeros are in
  neither share. On CPU-only machines `cap_gpu` = 0, which gives ±∞ (counted, as upstream) or
  NaN (excluded). Part `gap` plots 100 × (usage − plan) / capacity of the tasks whose gap is
  strictly positive or strictly negative (the notebook's two subsets; exact zeros are in no
  curve), finite values only (upstream draws it on a symlog axis).
- **Published:** the notebook prints CPU plan > usage 84.46 %, plan < usage 15.51 %; GPU 98.02 %
  and 1.97 %; memory 95.88 % and 4.12 %. These task-level values are the headlines' reference.
  The paper's text, per instance, says about 20 % (CPU) and 3 % (GPU) use more than they ask.
- **Differences:** the memory gap uses main memory (`avg_mem_gib`), as upstream does in this cell
  (unlike A15). Infinite gaps (`cap_gpu` = 0 on CPU machines) are counted in the shares but are
  not in tracelab's curves; upstream's curve data holds them as ±∞, which take ranks in its CDF
  without being drawn, so where such tasks exist its visible curve is shifted by their share.
"##;
    const PUBLISHED: &'static [Published] = &[
        Published::new("cpu_plan_over_usage", 84.46, "%", SOURCE),
        Published::new("cpu_plan_under_usage", 15.51, "%", SOURCE),
        Published::new("gpu_plan_over_usage", 98.02, "%", SOURCE),
        Published::new("gpu_plan_under_usage", 1.97, "%", SOURCE),
        Published::new("mem_plan_over_usage", 95.88, "%", SOURCE),
        Published::new("mem_plan_under_usage", 4.12, "%", SOURCE),
    ];

    fn definition(_: &()) -> String {
        "dfas (task sums over instances with sensor rows, incl. the summed capacities cap_* of the machines \
         they ran on); gap = (plan - usage) / capacity with capacity 100*cap_cpu, 100*cap_gpu, cap_mem_gib \
         and usage cpu_usage_pct, gpu_wrk_util_pct, avg_mem_gib; shares among non-null, non-NaN gaps, exact zeros in \
         neither share, +-inf (cap_gpu = 0 on CPU machines) counted as upstream; curves plot \
         100*(usage - plan)/capacity of the gaps > 0 and < 0 (exact zeros in no curve, as upstream) on a \
         symlog axis upstream, finite values only"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let dfas = frames::task_usage(ctx, &USAGE_SUMS)?;
        // The notebook's three normalized gaps, plan - usage over the summed
        // capacities of the machines the instances ran on.
        let gaps = [
            ("cpu", (col("plan_cpu_pct") - col("cpu_usage_pct")) / (lit(100.0) * col("cap_cpu"))),
            ("gpu", (col("plan_gpu_pct") - col("gpu_wrk_util_pct")) / (lit(100.0) * col("cap_gpu"))),
            ("mem", (col("plan_mem_gib") - col("avg_mem_gib")) / col("cap_mem_gib")),
        ];
        let exprs: Vec<Expr> = gaps.iter().map(|(n, e)| e.clone().alias(*n)).collect();
        let frame = dfas.select(exprs);
        let mut series = Vec::new();
        let mut headlines = Vec::new();
        for (name, _) in gaps {
            let valid = col(name).is_not_null().and(col(name).is_not_nan());
            let shares = collect(
                frame.clone().filter(valid).select([
                    col(name).gt(lit(0.0)).mean().alias("over"),
                    col(name).lt(lit(0.0)).mean().alias("under"),
                ]),
                "plan vs usage shares",
            )?;
            let over = f64s(&shares, "over")?[0].unwrap_or(f64::NAN) * 100.0;
            let under = f64s(&shares, "under")?[0].unwrap_or(f64::NAN) * 100.0;
            headlines.push(Headline::new(
                &format!("{name}_plan_over_usage"),
                &format!("{name}: plan > usage"),
                over,
                "%",
            ));
            headlines.push(Headline::new(
                &format!("{name}_plan_under_usage"),
                &format!("{name}: plan < usage"),
                under,
                "%",
            ));
            // A16 plots the `> 0` and `< 0` subsets: exact zeros are in no curve.
            let nonzero = frame.clone().filter(col(name).neq(lit(0.0)));
            series.push((name.to_string(), dist_by_sort(nonzero, lit(-100.0) * col(name), "usage minus request")?));
        }
        out.dists("gap", "(usage - request) / capacity (%)", series).headlines("shares", headlines);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;
    use crate::output::Body;
    use crate::testkit;
    use tracelab_schema::pai::{GROUP_TAG, INSTANCE, JOB, MACHINE_SPEC, SENSOR, TASK};

    /// Task a/t: 2 instances (plans 600 % CPU, 50 % GPU, 10 GiB each) on m1
    /// (96 vCPU, 2 GPUs, 512 GiB) and m2 (CPU machine: 96, 0, 512); usages
    /// w1 100/20/4, w2 300/0/30. Sums: plan 1200/100/20, use 400/20/34, cap
    /// 192/2/1024. Gaps: cpu 800/19200 > 0, gpu 80/200 > 0, mem -14/1024 < 0.
    /// Task b/t: 1 instance on m2, plans 100/0/8, use 100/0/2: cpu gap 0
    /// (neither share), gpu 0/0 = NaN (excluded), mem 6/512 > 0.
    /// Shares: cpu over 1/2, under 0/2; gpu over 1/1; mem over 1/2, under 1/2.
    fn two_tasks() -> testkit::TinyStore {
        testkit::store(vec![
            (&JOB, df!("job_name" => ["a", "b"], "inst_id" => ["i", "j"], "user" => ["u", "u"], "status" => ["Terminated"; 2]).unwrap()),
            (
                &TASK,
                df!("job_name" => ["a", "b"], "task_name" => ["t", "t"], "inst_num" => [2i64, 1], "status" => ["Terminated"; 2],
                    "start_time" => [1i64, 1], "plan_cpu_pct" => [600.0, 100.0], "plan_gpu_pct" => [50.0, 0.0],
                    "plan_mem_gib" => [10.0, 8.0])
                .unwrap(),
            ),
            (
                &INSTANCE,
                df!("job_name" => ["a", "a", "b"], "task_name" => ["t"; 3], "inst_name" => ["x", "y", "z"],
                    "worker_name" => ["w1", "w2", "w3"], "inst_id" => ["i", "i", "j"], "status" => ["Terminated"; 3],
                    "machine" => ["m1", "m2", "m2"])
                .unwrap(),
            ),
            (
                &SENSOR,
                df!("job_name" => ["a", "a", "b"], "task_name" => ["t"; 3], "worker_name" => ["w1", "w2", "w3"],
                    "inst_id" => ["i", "i", "j"], "cpu_usage_pct" => [100.0, 300.0, 100.0],
                    "gpu_wrk_util_pct" => [20.0, 0.0, 0.0], "avg_mem_gib" => [4.0, 30.0, 2.0])
                .unwrap(),
            ),
            (&GROUP_TAG, df!("inst_id" => ["i"], "user" => ["u"]).unwrap()),
            (
                &MACHINE_SPEC,
                df!("machine" => ["m1", "m2"], "gpu_type" => ["T4", "CPU"], "cap_cpu" => [96i64, 96],
                    "cap_mem_gib" => [512i64, 512], "cap_gpu" => [2i64, 0])
                .unwrap(),
            ),
        ])
    }

    #[test]
    fn usage_minus_request_shares_by_hand() {
        let t = two_tasks();
        let out = testkit::run(&UsageMinusRequest, &t, &[]);
        let got: Vec<(String, f64)> = out.all_headlines().map(|h| (h.key.clone(), h.value)).collect();
        let want = [50.0, 0.0, 100.0, 0.0, 50.0, 50.0];
        for ((key, value), w) in got.iter().zip(want) {
            assert_eq!(*value, w, "{key}");
        }
    }

    /// The curves plot 100 * (usage - plan) / capacity of the strictly
    /// positive and strictly negative gaps only (A16 concatenates the
    /// `> 0` and `< 0` subsets), finite values: cpu a only (b's gap is 0),
    /// -100 * 800/19200 = -25/6; gpu a only (b's is NaN), -100 * 80/200 =
    /// -40; mem a 100 * 14/1024 = 1.3671875 and b -100 * 6/512 = -1.171875.
    #[test]
    fn usage_minus_request_curves_leave_out_zero_gaps() {
        let out = testkit::run(&UsageMinusRequest, &two_tasks(), &[]);
        let Body::Dists { series, .. } = &out.part("gap").unwrap().body else { panic!() };
        let values = |i: usize| series[i].1.values().to_vec();
        assert_eq!(series.iter().map(|s| s.0.as_str()).collect::<Vec<_>>(), ["cpu", "gpu", "mem"]);
        assert_eq!(values(0).len(), 1);
        assert!((values(0)[0] + 25.0 / 6.0).abs() < 1e-12, "{:?}", values(0));
        assert_eq!(values(1), [-40.0]);
        assert_eq!(values(2), [-1.171875, 1.3671875]);
    }
}
