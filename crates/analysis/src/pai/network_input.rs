//! `pai.network-input`: instance network input as the notebook plots it
//! (NSDI'22 Fig 8a, notebook A17: `8*dfws.read/1024**3`).

use polars::prelude::*;

use super::frames;
use crate::declare::{About, Analyze, Scope};
use crate::frame::dist_by_sort;
use crate::output::Output;
use crate::Ctx;
use tracelab_schema::error::Result;

pub struct NetworkInput;

impl Analyze for NetworkInput {
    type Params = ();
    const ABOUT: About = About {
        id: "pai.network-input",
        scope: Scope::Pai,
        mirrors: "NSDI'22 Fig 8a (notebook A17)",
        summary: "instance network input, 8 * read / 1024^3 (Gbps as the notebook labels it)",
        title: "Network input per instance",
    };
    /// The long-form definition (docs/definitions.md, `--describe`).
    const DOC: &'static str = r##"
Mirrors NSDI'22 Fig 8a, notebook cell A17.

- **Reads** `dfws.read` (the instance's sensor `read`, bytes).
- **Computes** the distribution over instances of 8 × `read` / 1024³, which the notebook labels
  "Machine network receive (Gbps)" (it treats `read` as bytes per second). Nulls dropped. Part
  `read`.
- **Published:** none as a number (the paper: most machines use under half their bandwidth).
- **Differences:** none. Note that the value is per instance, not the machine-level
  `machine_net_receive_bytes`.
"##;

    fn definition(_: &()) -> String {
        "dfws (one row per worker with a sensor row); 8 * read / 1024^3, which the notebook labels \
         'Machine network receive (Gbps)': it treats the instance-level `read` as bytes per second \
         (it is not machine_net_receive_bytes); nulls dropped"
            .into()
    }

    fn run(ctx: &Ctx, _: &(), out: &mut Output) -> Result<()> {
        let dfws = frames::instances_with_sensor(ctx, &["read_bytes"])?;
        let gbps = dist_by_sort(dfws, lit(8.0) * col("read_bytes") / lit(1024f64.powi(3)), "network input")?;
        out.dists("read", "network input (Gbps, as labelled upstream)", vec![("instances".into(), gbps)]);
        Ok(())
    }
}
