//! One DataFusion session per query, and the run of the query in it.
//!
//! The session is what DataFusion plans and executes with; this module
//! decides everything it holds:
//!
//! - **Catalog**: the store's tables ([`StoreSchema`]) and nothing else: no
//!   information schema, no table functions (`generate_series`, file
//!   readers), no table factories (`CREATE EXTERNAL TABLE`), no URL tables.
//! - **Second wall**: the plan of the statement the guard passed is checked
//!   with DataFusion's `SQLOptions`, refusing DDL, DML and other statements
//!   whatever the guard missed.
//! - **Functions**: DataFusion's, with the growing string functions bounded
//!   (`strings`) and the exact quantiles of `quantile` in place of
//!   DataFusion's percentile_cont and median; PostgreSQL's casts and a
//!   bounded `||` (`semantics`).
//! - **Semantics set by options**: NULLs sort as the largest values (last
//!   ascending, first descending), as in PostgreSQL; times are UTC; no
//!   recursive CTEs (a recursive query has no bound on the rows it makes).
//! - **Memory**: a pool of `Limits::memory_limit` bytes shared fairly by the
//!   operators that can spill (sorts, grouping, joins), and a disk manager
//!   writing their spill files in the system's temporary folder.
//! - **One partition**: the query runs as one stream on this thread, so
//!   rows arrive in the files' order, sums of floating-point numbers add in
//!   that order, and a query prints the same bytes on every run (DataFusion
//!   splits a scan over threads otherwise, and merges their partial sums
//!   and rows in the order the threads finish).

use std::collections::HashMap;
use std::num::NonZeroUsize;
use std::sync::Arc;

use datafusion::common::config::TableParquetOptions;
use datafusion::error::DataFusionError;
use datafusion::execution::disk_manager::{DiskManagerBuilder, DiskManagerMode};
use datafusion::execution::memory_pool::{FairSpillPool, TrackConsumersPool};
use datafusion::execution::runtime_env::RuntimeEnvBuilder;
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::execution::SessionStateDefaults;
use datafusion::logical_expr::{AggregateUDF, ScalarUDF};
use datafusion::optimizer::{Analyzer, AnalyzerRule};
use datafusion::physical_optimizer::optimizer::PhysicalOptimizer;
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::collect;
use datafusion::prelude::{SQLOptions, SessionConfig, SessionContext};
use datafusion::sql::parser::Statement as DFStatement;
use datafusion::sql::sqlparser::ast::{Query, Statement};

use tracelab_store::StoredTable;

use super::dictionary_keys::{fitted_then_widest, CodeWidths, DictionaryGroupKeys};
use super::late_columns::LateColumns;
use super::mapped_files::MappedFiles;
use super::one_pass::OnePass;
use super::proven_filters::ProvenFilters;
use super::store_schema::StoreSchema;
use super::top_k_first::TopKFirst;
use super::{diagnose, intervals, notes, quantile, semantics, strings, Answer, Limits, QueryError};

/// Plans and runs `query` (parsed from `sql` and guarded) over `reads`, the
/// store tables it names, on a single-threaded runtime on this thread;
/// errors name the store's `tables`.
pub(crate) fn execute(
    sql: &str,
    query: Query,
    reads: Arc<Vec<StoredTable>>,
    tables: Arc<Vec<StoredTable>>,
    limits: &Limits,
) -> Result<Answer, QueryError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .map_err(|e| QueryError::plain(format!("cannot start the query engine: {e}")))?;
    runtime.block_on(run(sql, query, reads, &tables, limits))
}

async fn run(
    sql: &str,
    query: Query,
    reads: Arc<Vec<StoredTable>>,
    tables: &[StoredTable],
    limits: &Limits,
) -> Result<Answer, QueryError> {
    let explain = |e: DataFusionError| diagnose::explain(sql, &e, tables);
    fitted_then_widest(|widths| attempt(query.clone(), Arc::clone(&reads), limits, widths)).await.map_err(explain)
}

/// Plans and runs `query` once, text codes as `widths` says.
async fn attempt(
    query: Query,
    reads: Arc<Vec<StoredTable>>,
    limits: &Limits,
    widths: CodeWidths,
) -> Result<Answer, DataFusionError> {
    let ctx = context_with(reads, limits, physical_rules_with(widths))?;
    let statement = DFStatement::Statement(Box::new(Statement::Query(Box::new(query))));
    let plan = ctx.state().statement_to_plan(statement).await?;
    read_only().verify_plan(&plan)?;
    let mut notes = notes::integer_divisions(&plan);
    let frame = ctx.execute_logical_plan(plan).await?;
    let physical = frame.create_physical_plan().await?;
    let batches = collect(Arc::clone(&physical), ctx.task_ctx()).await;
    if std::env::var_os("TRACELAB_DEBUG_PLAN").is_some() {
        print_plan(physical.as_ref());
    }
    let batches = batches?;
    notes.extend(notes::spills(&physical, limits.memory_limit));
    Ok(Answer { schema: physical.schema(), batches, notes })
}

/// A developer's switch (`TRACELAB_DEBUG_PLAN`): the physical plan as run
/// (or as far as it ran, when the query failed), with each operator's
/// metrics (rows, time, bytes scanned, pages pruned), on stderr, for reading
/// why a query is slow; no user output depends on it.
#[allow(clippy::print_stderr)]
fn print_plan(physical: &dyn datafusion::physical_plan::ExecutionPlan) {
    eprintln!("{}", datafusion::physical_plan::display::DisplayableExecutionPlan::with_metrics(physical).indent(true));
}

/// What the plan may contain: a query, nothing that defines, changes or
/// sets anything.
fn read_only() -> SQLOptions {
    SQLOptions::new().with_allow_ddl(false).with_allow_dml(false).with_allow_statements(false)
}

/// The session of one query over `tables`, as a query is first run.
#[cfg(test)]
pub(crate) fn context(tables: Arc<Vec<StoredTable>>, limits: &Limits) -> Result<SessionContext, DataFusionError> {
    context_with(tables, limits, physical_rules())
}

/// [`context`] with the physical optimizer rules `rules`.
fn context_with(
    tables: Arc<Vec<StoredTable>>,
    limits: &Limits,
    rules: Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>>,
) -> Result<SessionContext, DataFusionError> {
    let config = config(limits);
    let parquet = TableParquetOptions { global: config.options().execution.parquet.clone(), ..Default::default() };
    let pool = TrackConsumersPool::new(FairSpillPool::new(limits.memory_limit as usize), NonZeroUsize::MIN);
    let runtime = RuntimeEnvBuilder::new()
        .with_memory_pool(Arc::new(pool))
        .with_disk_manager_builder(DiskManagerBuilder::default().with_mode(DiskManagerMode::OsTmpDirectory))
        .build_arc()?;
    let local = url::Url::parse("file://").map_err(|e| DataFusionError::Internal(e.to_string()))?;
    runtime.register_object_store(&local, Arc::new(MappedFiles::default()));
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_runtime_env(runtime)
        .with_default_features()
        .with_table_function_list(Vec::new())
        .with_table_factories(HashMap::new())
        .with_scalar_functions(scalar_functions())
        .with_aggregate_functions(aggregates())
        .with_analyzer_rules(analyzer_rules())
        .with_physical_optimizer_rules(rules)
        .build();
    let ctx = SessionContext::new_with_state(state);
    let catalog = ctx.catalog("datafusion").ok_or_else(|| DataFusionError::Internal("no default catalog".into()))?;
    catalog.register_schema("public", Arc::new(StoreSchema::new(tables, parquet)))?;
    Ok(ctx)
}

/// DataFusion's scalar functions, the growing string ones bounded, and
/// tracelab's interval product.
fn scalar_functions() -> Vec<Arc<ScalarUDF>> {
    let mut all = strings::bound(SessionStateDefaults::default_scalar_functions());
    all.push(intervals::interval_times());
    all
}

/// DataFusion's analyzer rules (type coercion among them) between
/// `semantics`' rule that must see the types before coercion and the one
/// that must see them after.
fn analyzer_rules() -> Vec<Arc<dyn AnalyzerRule + Send + Sync>> {
    let mut rules = Analyzer::new().rules;
    rules.insert(0, Arc::new(semantics::SignedArithmetic));
    rules.push(Arc::new(semantics::PostgresSemantics::new()));
    rules
}

/// The physical optimizer rules as a query is first run.
#[cfg(test)]
pub(crate) fn physical_rules() -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    physical_rules_with(CodeWidths::Fitted)
}

/// DataFusion's physical optimizer rules with [`LateColumns`] and
/// [`OnePass`] before the last filter pushdown (which gives the joins'
/// and top-k's dynamic filters to the scans of the plan as rewritten), and
/// after it, last before the sanity check, [`ProvenFilters`] (its scans
/// carry those dynamic filters along) and [`DictionaryGroupKeys`], which
/// sees the filters it leaves and changes a scan's column types, which no
/// rule after it is to see; its text codes as `widths` says.
pub(crate) fn physical_rules_with(widths: CodeWidths) -> Vec<Arc<dyn PhysicalOptimizerRule + Send + Sync>> {
    let mut rules = PhysicalOptimizer::new().rules;
    let at = rules.iter().position(|r| r.name() == "FilterPushdown(Post)").unwrap_or(rules.len());
    rules.insert(at, Arc::new(TopKFirst));
    rules.insert(at + 1, Arc::new(LateColumns));
    rules.insert(at + 2, Arc::new(OnePass));
    let at = rules.iter().position(|r| r.name() == "SanityCheckPlan").unwrap_or(rules.len());
    rules.insert(at, Arc::new(ProvenFilters));
    rules.insert(at + 1, Arc::new(DictionaryGroupKeys { widths }));
    rules
}

/// Names PostgreSQL and DuckDB give DataFusion's aggregates: `variance` is
/// the sample variance.
const MORE_NAMES: &[(&str, &str)] = &[("var", "variance")];

/// DataFusion's aggregates, with `quantile`'s in place of its own of the
/// same names.
fn aggregates() -> Vec<Arc<AggregateUDF>> {
    let ours = quantile::aggregates();
    let replaced = |f: &Arc<AggregateUDF>| {
        ours.iter().any(|o| o.name() == f.name() || o.aliases().iter().any(|a| f.aliases().contains(a)))
    };
    let mut all: Vec<Arc<AggregateUDF>> = SessionStateDefaults::default_aggregate_functions()
        .into_iter()
        .filter(|f| !replaced(f))
        .map(|f| match MORE_NAMES.iter().find(|(name, _)| *name == f.name()) {
            Some((_, more)) => Arc::new(f.as_ref().clone().with_aliases([*more])),
            None => f,
        })
        .collect();
    all.extend(ours);
    all
}

fn config(limits: &Limits) -> SessionConfig {
    let mut config = SessionConfig::new().with_target_partitions(1).with_information_schema(false);
    let options = config.options_mut();
    options.sql_parser.collect_spans = true;
    options.sql_parser.default_null_ordering = "nulls_max".into();
    options.execution.time_zone = Some("+00:00".into());
    options.execution.enable_recursive_ctes = false;
    // A hash join builds its table from the input it estimates smaller.
    // A filter whose selectivity it cannot work out from the files'
    // statistics (`IS NOT NULL`, an equality on a string) counts by default
    // as keeping a fifth of the rows, which made 3.6 M sensor rows the
    // build side against 1.3 M tasks in `instances-over-request` (0.85 GB
    // and twice the time): counting such a filter as keeping every row
    // compares the tables as stored.
    options.optimizer.default_filter_selectivity = 100;
    // A sort keeps this much aside to merge what it spilled; DataFusion's
    // 10 MiB would take all of a small limit.
    options.execution.sort_spill_reservation_bytes = (limits.memory_limit / 16).min(10 << 20) as usize;
    config
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plans `sql` in a session over no tables without the guard, as the
    /// second wall sees it: the error, if any.
    fn unguarded(sql: &str) -> Option<String> {
        let limits = Limits { memory_limit: 64 << 20, ..Limits::default() };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            let ctx = context(Arc::new(Vec::new()), &limits).unwrap();
            match ctx.state().create_logical_plan(sql).await {
                Err(e) => Some(e.to_string()),
                Ok(plan) => read_only().verify_plan(&plan).err().map(|e| e.to_string()),
            }
        })
    }

    /// The statements the guard refuses are refused by the session too, and
    /// no table function (a file reader, `generate_series`) exists in it.
    #[test]
    fn without_the_guard_the_session_refuses_statements_and_has_no_file_readers() {
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("secret.csv");
        std::fs::write(&secret, "token\nhunter2\n").unwrap();
        let p = secret.to_str().unwrap();
        for sql in [
            format!("CREATE EXTERNAL TABLE t STORED AS CSV LOCATION '{p}'"),
            format!("COPY (SELECT 1 AS x) TO '{p}.out'"),
            "CREATE TABLE made AS SELECT 1 AS x".to_string(),
            "CREATE VIEW v AS SELECT 1 AS x".to_string(),
            "SET datafusion.execution.batch_size = 1".to_string(),
            "DROP TABLE IF EXISTS jobs".to_string(),
            format!("SELECT * FROM read_csv('{p}')"),
            format!("SELECT * FROM read_parquet('{p}')"),
            format!("SELECT * FROM '{p}'"),
            "SELECT * FROM generate_series(1, 3)".to_string(),
            "SELECT * FROM information_schema.tables".to_string(),
        ] {
            let err = unguarded(&sql).unwrap_or_else(|| panic!("the session planned {sql}"));
            assert!(!err.contains("hunter2"), "{sql}: {err}");
        }
        assert!(!std::path::Path::new(&format!("{p}.out")).exists());
        assert_eq!(unguarded("SELECT 1 AS x"), None);
    }

    /// `sql` (one value) in a session over no tables: the value as text and
    /// the optimized plan.
    fn value_and_plan(sql: &str) -> (String, String) {
        let limits = Limits { memory_limit: 64 << 20, ..Limits::default() };
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(async {
            let ctx = context(Arc::new(Vec::new()), &limits).unwrap();
            let frame = ctx.sql(sql).await.unwrap();
            let plan = format!("{}", frame.clone().into_optimized_plan().unwrap().display_indent());
            let batches = frame.collect().await.unwrap();
            let value = datafusion::arrow::util::display::array_value_to_string(batches[0].column(0), 0).unwrap();
            (value, plan)
        })
    }

    /// A time in UTC or without a zone plus or minus an interval of days
    /// and smaller units is computed as a duration (no interval left in the
    /// plan), giving the instant worked out by hand; an interval of months,
    /// or a time in a zone with its own calendar, keeps DataFusion's
    /// interval arithmetic.
    #[test]
    fn an_interval_without_months_is_added_to_a_utc_time_as_a_duration() {
        let utc = "arrow_cast(TIMESTAMP '2024-03-10 23:30:00', 'Timestamp(Microsecond, Some(\"UTC\"))')";
        let naive = "arrow_cast(TIMESTAMP '2024-03-10 23:30:00', 'Timestamp(Second, None)')";
        let shanghai = "arrow_cast(TIMESTAMP '2024-03-10 23:30:00', 'Timestamp(Microsecond, Some(\"Asia/Shanghai\"))')";
        // From a row, so that the optimizer does not fold the sum away.
        let row = |time: &str, interval: &str| format!("SELECT t {interval} FROM (VALUES ({time})) AS v(t)");
        for (sql, value, rewritten) in [
            (row(utc, "+ INTERVAL '8 hours'"), "2024-03-11T07:30:00Z", true),
            (row(utc, "- INTERVAL '1 day 30 minutes'"), "2024-03-09T23:00:00Z", true),
            (row(utc, "+ INTERVAL '0.25 seconds'"), "2024-03-10T23:30:00.250Z", true),
            (row(naive, "+ INTERVAL '2 days 1 hour'"), "2024-03-13T00:30:00", true),
            // Half a second does not divide into whole seconds.
            (row(naive, "+ INTERVAL '0.5 seconds'"), "2024-03-10T23:30:00", false),
            (row(utc, "+ INTERVAL '1 month'"), "2024-04-10T23:30:00Z", false),
            (row(shanghai, "+ INTERVAL '1 day'"), "2024-03-11T23:30:00+08:00", false),
        ] {
            let (got, plan) = value_and_plan(&sql);
            assert_eq!(got, value, "{sql}");
            // The result keeps the name the query wrote: only the sum shows a duration.
            assert_eq!(plan.contains("t + Duration") || plan.contains("t - Duration"), rewritten, "{sql}\n{plan}");
        }
    }
}
