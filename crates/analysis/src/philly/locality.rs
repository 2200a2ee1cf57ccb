//! `philly.locality`: the servers of the first attempt against the
//! first-attempt queueing delay, jobs with 5+ GPUs (ATC'19 Fig 4, the
//! notebook's 'Locality Constraints' cell).

use std::collections::BTreeMap;

use polars::prelude::*;

use super::bucket;
use super::clock::{Clock, CLOCK};
use crate::declare::{About, Analyze, Scope};
use crate::frame::{collect, f64s, i64s, strs};
use crate::output::{Cell, Output, ResultTable};
use crate::params::params;
use crate::Ctx;
use tracelab_schema::error::Result;
use tracelab_schema::philly::{ATTEMPTS, JOBS};
use tracelab_stats::Dist;

params! {
    pub struct LocalityParams {
        pub clock: Clock = CLOCK,
    }
}

pub struct Locality;

impl Analyze for Locality {
    type Params = LocalityParams;
    const ABOUT: About = About {
        id: "philly.locality",
        scope: Scope::Philly,
        mirrors: "ATC'19 Fig 4 (notebook 'Locality Constraints')",
        summary: "Servers of the first attempt vs first-attempt queueing delay, jobs with 5+ GPUs",
        title: "Locality constraints vs queueing delay (ATC'19 Fig 4)",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors ATC'19 Fig 4, notebook P3 ("Locality Constraints").

- **Reads** `philly/jobs` with at least one attempt and a first-attempt GPU count of 5 or more
  (every status), joined to their first attempt.
- **Computes** x = first-attempt queueing delay (first start minus submission) in **minutes**,
  y = number of machines of the first attempt. Part `scatter`: one series per bucket (5-8, > 8).
  Part `by-servers`: jobs and P50/P90 delay per (bucket, machines).
- **Published:** none.
- **Differences:** jobs whose first attempt has no start are skipped; the notebook would hand a
  missing value to its scatter plot. With the default `clock=utc`, a delay that spans the
  2017-11-05 fall-back is 60 minutes longer than in the notebook.
"##;

    fn definition(p: &LocalityParams) -> String {
        format!(
            "philly/jobs with at least one attempt and first-attempt GPUs >= 5 (every status), joined to their first \
         attempt (philly/attempts, attempt = 0): x = first-attempt queueing delay (first start - submit) in \
         MINUTES, y = servers of the first attempt (len(attempts[0].detail)); jobs without a first start are \
         skipped (the notebook would plot None). Series by bucket 5-8 and >8 GPUs. {}",
            p.clock.note()
        )
    }

    /// P3: for jobs with attempts and 5+ GPUs, the first-attempt queueing
    /// delay (minutes) against the servers of the first attempt.
    fn run(ctx: &Ctx, p: &LocalityParams, out: &mut Output) -> Result<()> {
        let jobs = ctx.store.scan(&JOBS)?.filter(col("attempts").gt(lit(0i64)).and(col("gpus").gt_eq(lit(5i64))));
        let first =
            ctx.store.scan(&ATTEMPTS)?.filter(col("attempt").eq(lit(0i64))).select([col("job_id"), col("machines")]);
        let lf = jobs
            .join(first, [col("job_id")], [col("job_id")], JoinArgs::new(JoinType::Inner))
            .select([bucket(col("gpus")).alias("b"), p.clock.queue_minutes().alias("x"), col("machines").alias("y")])
            .filter(col("x").is_not_null())
            .sort(["b", "x", "y"], SortMultipleOptions::default());
        let df = collect(lf, "philly.locality")?;
        let (b, x, y) = (strs(&df, "b")?, f64s(&df, "x")?, i64s(&df, "y")?);
        let rows: Vec<(String, f64, i64)> =
            (0..df.height()).filter_map(|i| Some((b[i].clone()?, x[i]?, y[i]?))).collect();
        let series = ["5-8 GPU", ">8 GPU"]
            .iter()
            .map(|l| (l.to_string(), rows.iter().filter(|r| r.0 == *l).map(|r| (r.1, r.2 as f64)).collect()))
            .collect();
        out.curves("scatter", "Queueing delay (min)", "Servers of the first attempt", series);
        out.table("by-servers", locality_table(&rows));
        Ok(())
    }
}

/// Jobs and delay quantiles per (bucket, servers).
fn locality_table(rows: &[(String, f64, i64)]) -> ResultTable {
    let mut groups: BTreeMap<(String, i64), Vec<f64>> = BTreeMap::new();
    for (b, x, y) in rows {
        groups.entry((b.clone(), *y)).or_default().push(*x);
    }
    let mut t = ResultTable::new(&["gpus", "servers", "jobs", "p50_delay_min", "p90_delay_min"]);
    for ((b, servers), xs) in groups {
        let d = Dist::from_samples(xs);
        t.push(vec![
            Cell::from(b),
            Cell::Int(servers),
            Cell::from(d.n()),
            d.quantile(0.5).into(),
            d.quantile(0.9).into(),
        ]);
    }
    t
}
