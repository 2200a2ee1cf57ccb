//! `tracelab export --to pollux --recipe pollux`: the workload Pollux's own
//! generator would draw from a trace ([`super::recipe`]), written as the
//! artifact's workload CSV (`name,time,application,num_replicas,batch_size`,
//! plus `trace_job_id`, which the artifact's simulator ignores), with the
//! accounting of every trace row and the class mix beside Pollux's
//! published one. Unlike the plain `--to pollux` mapping, which writes
//! every job of a window, this is Pollux's selection.

use tracelab_analysis::Output;
use tracelab_schema::error::{Error, Result};
use tracelab_store::Store;

use super::recipe::Recipe;
use super::run::{mix_table, workload_table};
use super::{prepare, ElasticPrepared, ElasticSource};
use crate::export::text::csv_line;
use crate::load::TraceSel;
use crate::results::accounting;

const HEAD: [&str; 6] = ["name", "time", "application", "num_replicas", "batch_size", "trace_job_id"];

/// The CSV and the terminal record of the generator's workload.
pub fn export(store: &Store, trace: &TraceSel, recipe: &Recipe) -> Result<(String, Output)> {
    // The cluster only bounds GPUs per node; the artifact's 16x4 is what
    // its workloads were drawn for.
    let p = prepare(Some(store), &ElasticSource::Trace(trace.clone(), recipe.clone()), 16, 4)?;
    Ok((csv(&p)?, output(&p)))
}

/// The workload as the artifact's CSV: times in whole seconds of the day.
pub fn csv(p: &ElasticPrepared) -> Result<String> {
    let account = p.trace.as_ref().ok_or_else(|| Error::Usage("the Pollux recipe needs a trace".into()))?;
    let mut text = csv_line(&HEAD);
    for (j, id) in p.jobs.iter().zip(&account.trace_ids) {
        text.push_str(&csv_line(&[
            j.name.clone(),
            (j.submit / 1000).to_string(),
            j.application.name.to_string(),
            j.replicas.to_string(),
            j.batch_size.to_string(),
            id.clone(),
        ]));
    }
    Ok(text)
}

fn output(p: &ElasticPrepared) -> Output {
    let definition = format!(
        "Source: {}. Written as the Pollux artifact's workload CSV: time = seconds of the (shifted) day; \
         application, num_replicas and batch_size as the generator assigns them; trace_job_id = the trace's job. \
         Accounting: rows read = written + left out by reason. Mix: the GPU-hour classes of the jobs written beside \
         Pollux's published mix (OSDI'21 Table 1). Semantics: docs/simulate-elastic.md.",
        super::run::source_text(p)
    );
    let mut out = Output::new("export", &format!("Pollux workload from {}", p.source), definition);
    if let Some(t) = &p.trace {
        out.table("accounting", accounting("written", p.jobs.len(), &t.left_out, t.rows));
        out.table("mix", mix_table(&t.classes));
    }
    out.table("workload", workload_table(p));
    out
}
