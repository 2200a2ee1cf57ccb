//! `philly.host-util`: host CPU and memory utilization over every
//! per-minute machine sample (ATC'19 Fig 7, the notebook's 'Host Resource
//! Utilization' cell).

use polars::prelude::*;

use crate::declare::{About, Analyze, Memory, Scope};
use crate::frame::dist_by_sort;
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::{CPU_UTIL, MEM_UTIL};

pub struct HostUtil;

impl Analyze for HostUtil {
    type Params = ();
    /// Peak 1.40-1.94 GB over the 42.3 M gpu_util rows of the full-scale synthetic trace (the
    /// engine's sort of 84 M samples; the spread is from run to run).
    const MEMORY: Memory = Memory::PerRow(&tracelab_schema::philly::GPU_UTIL, 46);
    const ABOUT: About = About {
        id: "philly.host-util",
        scope: Scope::Philly,
        mirrors: "ATC'19 Fig 7 (notebook 'Host Resource Utilization')",
        summary: "Host CPU and memory utilization CDF over all per-minute machine samples",
        title: "Host CPU and memory utilization (ATC'19 Fig 7)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors ATC'19 Fig 7, notebook P6 ("Host Resource Utilization").

- **Computes** two distributions in % (part `host`): CPU = every `philly/cpu_util` row with a
  value (NA skipped); memory = 100 × (`mem_total_kib` − `mem_free_kib`) / `mem_total_kib` for every
  `philly/mem_util` row with both values and `mem_total_kib` ≠ 0. One sample per machine-minute.
- **Published:** none.
- **Differences:** a memory row with a total but no free value is skipped; the notebook would stop
  with an error on it.
"##;

    fn definition(_: &()) -> String {
        "CPU: every philly/cpu_util row with a value (NA rows skipped), cpu_util_pct. Memory: every philly/mem_util \
         row with both values and mem_total_kib != 0: 100 * (mem_total_kib - mem_free_kib) / mem_total_kib. One sample per \
         machine-minute; utilization in %."
            .into()
    }

    /// P6: every non-NA CPU sample and every memory sample with a non-zero
    /// total. Both distributions are sorted ([`dist_by_sort`]): memory
    /// utilization is a ratio with almost every value distinct, where
    /// hashed value counts needed over 4 GB on the full trace.
    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let cpu = dist_by_sort(ctx.store.scan(&CPU_UTIL)?, col("cpu_util_pct"), "philly.host-util cpu")?;
        let mem_lf = ctx.store.scan(&MEM_UTIL)?.filter(col("mem_total_kib").neq(lit(0.0)));
        let mem_expr = lit(100.0) * (col("mem_total_kib") - col("mem_free_kib")) / col("mem_total_kib");
        let mem = dist_by_sort(mem_lf, mem_expr, "philly.host-util mem")?;
        out.dists("host", "Utilization (%)", vec![("CPU".into(), cpu), ("Memory".into(), mem)]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use polars::df;

    use super::*;
    use crate::output::Body;
    use crate::testkit;

    #[test]
    fn host_util_skips_na_and_zero_totals() {
        let cpu = df!("time" => [0i64, 0, 60], "machine" => ["m1", "m2", "m1"], "cpu_util_pct" => [Some(10.0), None, Some(30.0)]).unwrap();
        let mem = df!(
            "time" => [0i64, 0, 60],
            "machine" => ["m1", "m2", "m1"],
            "mem_total_kib" => [Some(200.0), Some(0.0), None],
            "mem_free_kib" => [Some(150.0), Some(0.0), Some(1.0)],
        )
        .unwrap();
        let tiny = testkit::store(vec![(&CPU_UTIL, cpu), (&MEM_UTIL, mem)]);
        let out = testkit::run(&HostUtil, &tiny, &[]);
        let Body::Dists { series, .. } = &out.part("host").unwrap().body else { unreachable!() };
        // CPU: 10 and 30 (NA skipped). Memory: 100 * (200 - 150) / 200 = 25; total 0 and NA skipped.
        assert_eq!(series[0].1.values(), &[10.0, 30.0]);
        assert_eq!(series[1].1.values(), &[25.0]);
    }
}
