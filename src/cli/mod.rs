//! The command line: clap definitions, dispatch, exit codes and output. This
//! is the only module that reads argv or the environment and prints.
//!
//! Exit codes: 0 success, 1 a data or input error, 2 a usage error. A closed
//! stdout (`tracelab schema | head`) ends quietly with 0.

mod analyze;
mod choice;
mod completions;
mod export;
mod ingest;
mod listing;
mod output;
mod params;
mod progress;
mod query;
mod report;
mod schema;
mod selection;
mod simulate;
mod simulate_elastic;
mod store;
mod synth;
mod tables;

use std::io::{self, Write};

use clap::{Parser, Subcommand};

/// Public GPU-cluster traces (Alibaba PAI gpu-v2020, Microsoft Philly,
/// SenseTime Helios) in; normalized Parquet, analyses and figures out.
#[derive(Debug, Parser)]
#[command(name = "tracelab", version, about, long_about = None, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Analyze(analyze::Args),
    Ingest(ingest::Args),
    Schema(schema::Args),
    Synth(synth::Args),
    Tables(tables::Args),
    Query(query::Args),
    Report(report::Args),
    // Boxed: its many options would make every command as large.
    Simulate(Box<simulate::Args>),
    Export(export::Args),
    Completions(completions::CompletionsArgs),
    Man(completions::ManArgs),
}

/// Runs the CLI and returns the process exit code.
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Analyze(args) => analyze::run(args),
        Command::Ingest(args) => ingest::run(args),
        Command::Schema(args) => schema::run(args),
        Command::Synth(args) => synth::run(args),
        Command::Tables(args) => tables::run(args),
        Command::Query(args) => query::run(args),
        Command::Report(args) => report::run(args),
        Command::Simulate(args) => simulate::run(*args),
        Command::Completions(args) => completions::completions(args),
        Command::Man(args) => completions::man(args),
        Command::Export(args) => export::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            // An error can quote a trace's field, a file name or the user's
            // SQL: shown escaped, never as terminal control sequences.
            eprintln!("error: {}", tracelab_present::text::neutralize_lines(&format!("{e:#}")));
            exit_code(&e)
        }
    }
}

/// The tests of atomic publication kill ingest at every rename:
/// `TRACELAB_TEST_CRASH_AT_RENAME=<n>` aborts the process just before the
/// n-th rename of an ingest's publication ([`tracelab_store::fault`]),
/// handed to every ingest the CLI runs. Not for users.
fn crash_hook() -> tracelab_ingest::CrashHook {
    let n = std::env::var("TRACELAB_TEST_CRASH_AT_RENAME").ok().and_then(|v| v.parse().ok());
    n.map_or_else(Default::default, tracelab_ingest::CrashHook::before_rename)
}

/// 2 for usage errors, 1 otherwise.
fn exit_code(e: &anyhow::Error) -> i32 {
    e.downcast_ref::<tracelab_schema::Error>().map_or(1, tracelab_schema::Error::exit_code)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}

/// Writes to stdout, surfacing a closed pipe as an error to stop on.
fn out(text: &str) -> anyhow::Result<()> {
    out_bytes(text.as_bytes())
}

fn out_bytes(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()?;
    Ok(())
}
