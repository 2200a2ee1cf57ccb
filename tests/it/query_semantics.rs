//! `tracelab query`: PostgreSQL's semantics where engines differ (integer
//! division, NULL order, exact quantiles, rounding casts, time literals,
//! scoping of names), the ceilings of issue 31 (query length and depth,
//! text values, memory), and errors that point into the query. Every
//! expected value is computed here from the sample store's Parquet files
//! read directly (or worked out by hand in a comment), never taken from
//! tracelab's own output.

use polars::prelude::*;

use crate::common::*;
use crate::query::{count_where, query, query_ok, query_refused};

fn csv(sql: &str) -> String {
    query_ok(&[sql, "--format", "csv"])
}

fn philly() -> DataFrame {
    read_parquet(&sample_store().join("philly/jobs.parquet"))
}

fn unified() -> DataFrame {
    read_parquet(&sample_store().join("jobs.parquet"))
}

/// `7 / 2` is 3 and `-7 / 2` is -3, by hand; a division of two integer
/// columns is rounded toward zero on every row, and stderr says which
/// division it was and the cast that gives a fraction.
#[test]
fn integer_division_is_postgres_and_says_so() {
    let (code, out, err) = query(&["SELECT 7 / 2 AS a, -7 / 2 AS b, 7 % 3 AS c, -7 % 3 AS d", "--format", "csv"]);
    assert_eq!((code, out.as_str()), (0, "a,b,c,d\n3,-3,1,-1\n"), "{err}");
    assert!(err.contains("`7 / 2` divides two integers") && err.contains("CAST(7 AS DOUBLE) / 2"), "{err}");
    let jobs = philly();
    let gpus: Vec<Option<i64>> = jobs.column("gpus").unwrap().i64().unwrap().iter().collect();
    let ids: Vec<Option<&str>> = jobs.column("job_id").unwrap().str().unwrap().iter().collect();
    let mut want: Vec<(String, Option<i64>)> =
        ids.iter().zip(&gpus).map(|(id, g)| (id.unwrap().to_string(), g.map(|g| g / 3))).collect();
    want.sort();
    let (code, out, err) =
        query(&["SELECT job_id, gpus / 3 AS third FROM philly_jobs ORDER BY job_id", "--format", "csv"]);
    assert_eq!(code, 0, "{err}");
    let body: String =
        want.iter().map(|(id, t)| format!("{id},{}\n", t.map_or(String::new(), |t| t.to_string()))).collect();
    assert_eq!(out, format!("job_id,third\n{body}"));
    assert!(err.contains("`gpus / 3` divides two integers") && err.contains("CAST(gpus AS DOUBLE) / 3"), "{err}");
    // No note when one side is a double.
    let (_, _, err) = query(&["SELECT gpus / 3.0 AS third FROM philly_jobs", "--format", "csv"]);
    assert!(!err.contains("divides two integers"), "{err}");
}

/// NULLs are the largest values: last ascending, first descending.
#[test]
fn nulls_sort_last_ascending_and_first_descending() {
    let nulls = philly().column("run_s").unwrap().null_count();
    assert!(nulls > 0, "the sample must have jobs without a run time");
    let n = nulls + 3;
    let first = |order: &str| {
        let out = csv(&format!("SELECT run_s FROM philly_jobs ORDER BY run_s {order}, job_id LIMIT {n}"));
        out.lines().skip(1).map(str::to_string).collect::<Vec<_>>()
    };
    let desc = first("DESC");
    assert!(desc[..nulls].iter().all(|l| l == "\"\"" || l.is_empty()), "{desc:?}");
    assert!(desc[nulls..].iter().all(|l| !l.is_empty() && l != "\"\""), "{desc:?}");
    let asc = first("ASC");
    assert!(asc.iter().all(|l| !l.is_empty() && l != "\"\""), "{asc:?}");
}

/// percentile_cont by the textbook definition, computed here from the
/// sorted run times of each trace: position q(n-1), linear between the two
/// values around it; equal to 1e-12 (DuckDB's and numpy's definition).
#[test]
fn percentile_cont_is_the_exact_linear_interpolation() {
    let jobs = unified();
    let traces: Vec<Option<&str>> = jobs.column("trace").unwrap().str().unwrap().iter().collect();
    let run: Vec<Option<f64>> = jobs.column("run_s").unwrap().f64().unwrap().iter().collect();
    let sql = "SELECT trace, percentile_cont(0.9) WITHIN GROUP (ORDER BY run_s) AS p90, \
               quantile_cont(run_s, 0.37) AS p37, median(run_s) AS p50, \
               percentile_cont(0.9) WITHIN GROUP (ORDER BY run_s DESC) AS p10 \
               FROM jobs GROUP BY trace ORDER BY trace";
    let out = csv(sql);
    for row in out.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let mut v: Vec<f64> =
            traces.iter().zip(&run).filter(|(t, _)| **t == Some(f[0])).filter_map(|(_, r)| *r).collect();
        v.sort_by(f64::total_cmp);
        let at = |q: f64| {
            let pos = q * (v.len() - 1) as f64;
            let lo = pos.floor() as usize;
            let hi = (lo + 1).min(v.len() - 1);
            v[lo] + (v[hi] - v[lo]) * (pos - lo as f64)
        };
        for (cell, q) in f[1..].iter().zip([0.9, 0.37, 0.5, 0.1]) {
            let got: f64 = cell.parse().unwrap();
            let want = at(q);
            assert!((got - want).abs() <= 1e-12 * want.abs().max(1.0), "{row}: q {q}: want {want}");
        }
    }
}

/// A fraction cast to an integer rounds: a double's halves to even, a
/// literal's halves away from zero (PostgreSQL's float8 and numeric casts).
#[test]
fn a_fraction_cast_to_an_integer_rounds() {
    let sql = "SELECT CAST(2.5 AS BIGINT) AS a, CAST(-2.5 AS BIGINT) AS b, CAST(2.7 AS INT) AS c, \
               CAST(x AS BIGINT) AS d FROM (VALUES (2.5), (3.5), (-2.5), (2.4999)) AS t(x) ORDER BY x";
    // By hand: literals 3, -3, 3; the doubles -2.5 -> -2, 2.4999 -> 2, 2.5 -> 2, 3.5 -> 4.
    assert_eq!(csv(sql), "a,b,c,d\n3,-3,3,-2\n3,-3,3,2\n3,-3,3,2\n3,-3,3,4\n");
    // Per job, against the Parquet file: run time in minutes, rounded.
    let jobs = philly();
    let run: Vec<Option<f64>> = jobs.column("run_s").unwrap().f64().unwrap().iter().collect();
    let total: i64 = run.iter().flatten().map(|r| (r / 60.0).round_ties_even() as i64).sum();
    assert_eq!(csv("SELECT SUM(CAST(run_s / 60 AS BIGINT)) AS m FROM philly_jobs"), format!("m\n{total}\n"));
}

/// What `query` prints for a timestamp (RFC 3339 UTC) reads back in a
/// WHERE, also with another offset for the same instant; the count is the
/// one for the same time written without a zone, read as UTC.
#[test]
fn a_printed_timestamp_reads_back_in_a_where() {
    let printed = csv("SELECT MAX(submit_time) AS t FROM philly_jobs");
    let printed = printed.lines().nth(1).unwrap().to_string();
    assert!(printed.ends_with('Z') && printed.contains('T'), "{printed}");
    let count =
        |time: &str| csv(&format!("SELECT COUNT(*) AS n FROM philly_jobs AS j WHERE j.submit_time >= '{time}'"));
    let plain = printed.replace('T', " ").replace('Z', "");
    assert_eq!(count(&plain), "n\n1\n", "{plain}");
    assert_eq!(count(&printed), count(&plain), "{printed}");
    // The same instant eight hours ahead (a time in Shanghai).
    let utc = chrono::DateTime::parse_from_rfc3339(&printed).unwrap();
    let shanghai = utc.with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap()).to_rfc3339();
    assert!(shanghai.ends_with("+08:00"), "{shanghai}");
    assert_eq!(count(&shanghai), count(&plain), "{shanghai}");
    // Also a zoned literal against a CTE's copy of the column, a TIMESTAMP
    // literal, and computed times (which the previous engine refused).
    let jobs = unified();
    let submit = jobs.column("submit_time").unwrap().cast(&DataType::Int64).unwrap();
    // 2017-11-03T00:00:00Z in microseconds.
    let since = submit.i64().unwrap().iter().flatten().filter(|&t| t >= 1_509_667_200_000_000).count();
    for sql in [
        "SELECT COUNT(*) AS n FROM jobs WHERE submit_time >= '2017-11-03 00:00:00'",
        "SELECT COUNT(*) AS n FROM jobs WHERE submit_time >= TIMESTAMP '2017-11-03 00:00:00'",
        "WITH t AS (SELECT submit_time AS s FROM jobs) SELECT COUNT(*) AS n FROM t WHERE s >= '2017-11-03T08:00:00+08:00'",
        "SELECT COUNT(*) AS n FROM jobs WHERE submit_time + INTERVAL '8 hours' >= '2017-11-03 08:00:00'",
        "SELECT COUNT(*) AS n FROM jobs WHERE submit_time >= CAST('2017-11-03' AS TIMESTAMP)",
    ] {
        assert_eq!(csv(sql), format!("n\n{since}\n"), "{sql}");
    }
}

/// A window over grouped rows runs over the groups, as SQL defines it:
/// each VC's share of the jobs, against counts from the Parquet file.
#[test]
fn a_window_over_grouped_rows_is_over_the_groups() {
    let jobs = philly();
    let grouped = "SELECT vc, COUNT(*) AS n, COUNT(*) * 100.0 / SUM(COUNT(*)) OVER () AS pct FROM philly_jobs \
                   GROUP BY vc ORDER BY vc";
    let cte = "WITH g AS (SELECT vc, COUNT(*) AS n FROM philly_jobs GROUP BY vc) \
               SELECT vc, n, n * 100.0 / SUM(n) OVER () AS pct FROM g ORDER BY vc";
    let out = csv(grouped);
    assert_eq!(out, csv(cte));
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert!(rows.len() > 1, "{out}");
    for row in rows {
        let f: Vec<&str> = row.split(',').collect();
        let n = count_where(&jobs, "vc", f[0]);
        assert_eq!(f[1].parse::<usize>().unwrap(), n, "{row}");
        let want = n as f64 * 100.0 / jobs.height() as f64;
        assert!((f[2].parse::<f64>().unwrap() - want).abs() < 1e-9 * want.max(1.0), "{row}: want {want}");
    }
}

/// Three-valued logic and aggregates of constants as SQL defines them
/// (the previous engine refused these, or answered them wrongly).
#[test]
fn truth_tests_and_constant_aggregates_follow_sql() {
    let jobs = unified();
    let queue = jobs.column("queue_s").unwrap().f64().unwrap().clone();
    let not_long = queue.iter().filter(|q| q.is_none_or(|q| q <= 100.0)).count();
    assert!(queue.null_count() > 0 && not_long < jobs.height(), "the sample must have NULL and long queue times");
    assert_eq!(csv("SELECT COUNT(*) AS n FROM jobs WHERE (queue_s > 100) IS NOT TRUE"), format!("n\n{not_long}\n"));
    let short = queue.iter().filter(|q| q.is_some_and(|q| q <= 100.0)).count();
    assert_eq!(csv("SELECT COUNT(*) AS n FROM jobs WHERE (queue_s > 100) IS FALSE"), format!("n\n{short}\n"));
    let mut want = String::from("trace,n,m\n");
    for trace in ["acme", "helios", "pai", "philly", "spot", "swf"] {
        let n = count_where(&jobs, "trace", trace);
        want += &format!("{trace},{n},{}\n", 3 * n);
    }
    assert_eq!(csv("SELECT trace, SUM(1) AS n, SUM(3) AS m FROM jobs GROUP BY trace ORDER BY trace"), want);
}

/// ROLLUP after a WHERE that fixes the rolled-up column sorts the total
/// row last, as NULLs sort ascending (DataFusion 55 alone put it first: it
/// took the column for a constant). Counts from the Parquet file.
#[test]
fn a_rollup_total_sorts_as_a_null() {
    let vc = philly().column("vc").unwrap().str().unwrap().get(0).unwrap().to_string();
    let n = count_where(&philly(), "vc", &vc);
    let sql = format!("SELECT vc, COUNT(*) AS n FROM philly_jobs WHERE vc = '{vc}' GROUP BY ROLLUP (vc) ORDER BY 1");
    assert_eq!(csv(&sql), format!("vc,n\n{vc},{n}\n,{n}\n"));
}

/// A CTE named like a store table is the CTE in its query; a subquery
/// aliased like one does not hide the table in the same FROM (issue 31: the
/// previous engine counted 1 row for the second query).
#[test]
fn names_are_scoped_as_sql_scopes_them() {
    let n = philly().height();
    let cte = "WITH jobs AS (SELECT * FROM philly_jobs) SELECT COUNT(*) AS n FROM jobs";
    assert_eq!(csv(cte), format!("n\n{n}\n"));
    let hidden = "SELECT COUNT(*) AS n FROM (SELECT 1 AS x) AS philly_jobs, philly_jobs AS p";
    assert_eq!(csv(hidden), format!("n\n{n}\n"));
}

/// Issue 31: a long chain of operators overflowed the stack (exit 134); it
/// is refused before it is parsed, naming the ceiling, and a text over the
/// length ceiling too.
#[test]
fn a_deep_or_long_query_is_refused_before_it_is_parsed() {
    let ones = format!("SELECT 1{} AS x", "+1".repeat(5000));
    assert!(query_refused(&ones).contains("deeper than tracelab's ceiling of 1000 levels"));
    let ors = format!("SELECT COUNT(*) AS n FROM jobs WHERE {}", vec!["job_id = 'x'"; 2000].join(" OR "));
    assert!(query_refused(&ors).contains("x IN (a, b, c)"));
    // Over 1 MiB (from a file: an argument that long is over the system's limit).
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("long.sql");
    std::fs::write(&file, format!("SELECT '{}' AS x", "y".repeat(1 << 20))).unwrap();
    let (code, _, err) = query(&["-f", s(&file)]);
    assert_eq!(code, 1, "{}", &err[..err.len().min(300)]);
    assert!(err.contains("tracelab reads queries of at most 1 MiB"), "{}", &err[..err.len().min(300)]);
    // Under the ceiling a chain is planned and computed: 1 + 900 ones.
    assert_eq!(csv(&format!("SELECT 1{} AS x", "+1".repeat(900))), "x\n901\n");
}

/// Issue 31: `lpad(x, 3e8, 'y')` reached 21 GB; string functions refuse to
/// build a value over the ceiling, and a chain of concatenations doubling a
/// value in CTEs stops there too.
#[test]
fn string_functions_cannot_build_huge_values() {
    for (sql, function) in [
        ("SELECT lpad(job_id, 300000000, 'y') AS x FROM jobs", "lpad"),
        ("SELECT repeat(job_id, 100000000) AS x FROM philly_jobs", "repeat"),
        ("SELECT lpad('x', 300000000, 'y') AS x", "lpad"),
    ] {
        let err = query_refused(sql);
        assert!(err.contains(&format!("`{function}` would build")) && err.contains("16 MiB per value"), "{sql}: {err}");
    }
    // 'x' doubled 30 times is a GiB.
    let mut sql = String::from("WITH t0 AS (SELECT 'xx' AS s)");
    for i in 1..30 {
        sql += &format!(", t{i} AS (SELECT s || s AS s FROM t{})", i - 1);
    }
    sql += " SELECT LENGTH(s) AS n FROM t29";
    let err = query_refused(&sql);
    assert!(err.contains("would build a text value"), "{err}");
    // Under the ceiling they answer: 'ab' padded to 5 with 'xy' is 'xyxab' (by hand).
    assert_eq!(
        csv("SELECT lpad('ab', 5, 'xy') AS a, repeat('ab', 3) AS b, 'a' || NULL AS c"),
        "a,b,c\nxyxab,ababab,\n"
    );
}

/// A sort over more than the memory limit spills to disk and gives the rows
/// the unlimited run gives, and says so on stderr; a grouping too. (2 MiB:
/// each operator needs room for one batch of 8,192 rows of its own.)
#[test]
fn a_query_over_the_memory_limit_spills_and_answers_the_same() {
    let sql = "SELECT time, machine, gpu0_util_pct, gpu1_util_pct FROM philly_gpu_util \
               ORDER BY gpu0_util_pct DESC, machine, time";
    let unlimited = csv(sql);
    assert!(unlimited.lines().count() > 10_000, "the sort must hold many rows");
    let (code, out, err) = query(&[sql, "--format", "csv", "--memory-limit", "2MiB"]);
    assert_eq!(code, 0, "{err}");
    assert!(out == unlimited, "the spilled sort gave other rows");
    assert!(err.contains("memory limit (2 MiB)") && err.contains("temporary file"), "{err}");
    // A grouping over every row spills too.
    let sql = "SELECT machine, time, COUNT(*) AS n, SUM(gpu0_util_pct) AS s FROM philly_gpu_util \
               GROUP BY machine, time ORDER BY machine, time";
    let unlimited = csv(sql);
    let (code, out, err) = query(&[sql, "--format", "csv", "--memory-limit", "2MiB"]);
    assert_eq!((code, out == unlimited), (0, true), "{err}");
    let (code, _, err) = query(&["SELECT 1 AS x", "--memory-limit", "lots"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn two_result_columns_with_one_name_get_the_sql_fix() {
    let err = query_refused("SELECT COUNT(*), COUNT(*) FROM pai_jobs");
    assert!(err.contains("two columns of the result are named 'COUNT(*)'"), "{err}");
    assert!(err.contains("AS another_name"), "{err}");
    // Unnamed columns of a subquery, and one column of two joined tables,
    // keep names of their own.
    let out = csv("SELECT * FROM (SELECT MIN(job_id), MAX(job_id) FROM philly_jobs) AS s");
    let ids: Vec<String> =
        philly().column("job_id").unwrap().str().unwrap().iter().flatten().map(str::to_string).collect();
    let (min, max) = (ids.iter().min().unwrap(), ids.iter().max().unwrap());
    assert!(out.ends_with(&format!("\n{min},{max}\n")), "{out}");
    let out = csv("SELECT a.vc, b.vc FROM philly_jobs a JOIN philly_jobs b ON a.job_id = b.job_id ORDER BY 1 LIMIT 1");
    assert!(out.starts_with("vc,vc\n"), "{out}");
}

#[test]
fn sql_other_engines_have_gets_what_to_write_instead() {
    // (query, what the error must say)
    for (sql, said) in [
        ("SELECT count_if(run_s > 60) AS n FROM jobs", "COUNT(*) FILTER (WHERE condition)"),
        ("SELECT datediff('second', start_time, end_time) AS d FROM jobs", "EXTRACT(EPOCH FROM end_time) -"),
        ("SELECT arg_max(job_id, run_s) AS j FROM jobs", "ROW_NUMBER() OVER (PARTITION BY g"),
        ("SELECT mode(trace) AS t FROM jobs", "ORDER BY n DESC, x LIMIT 1"),
        ("SELECT dayofweek(submit_time) AS d FROM jobs", "EXTRACT(DOW FROM ts)"),
        ("SELECT COUNT(*) AS n FROM jobs a JOIN jobs b ON a.user = b.user", "write a.\"user\""),
        ("SELECT gpu FROM helios_jobs", "columns of helios_jobs: cluster, job_id"),
        ("WITH RECURSIVE t AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM t) SELECT n FROM t", "WITH RECURSIVE"),
        ("SELECT trace, MAX(run_s) AS m FROM jobs GROUP BY trace ORDER BY status", "status"),
        ("SELECT vc FROM philly_jobs WHERE", "syntax error"),
    ] {
        let err = query_refused(sql);
        assert!(err.contains(said), "{sql}: {err}");
    }
    let err = query_refused("SELECT gpu FROM helios_jobs");
    assert!(err.contains("column 8"), "{err}");
}

/// What the previous engine refused or answered wrongly, now answered,
/// checked against values computed from the Parquet files.
#[test]
fn sql_the_previous_engine_lacked_answers() {
    let jobs = unified();
    // A subquery compared with `>`; the population standard deviation.
    let known: Vec<f64> = jobs.column("run_s").unwrap().f64().unwrap().iter().flatten().collect();
    let mean = known.iter().sum::<f64>() / known.len() as f64;
    let above = known.iter().filter(|&&r| r > mean).count();
    assert_eq!(
        csv("SELECT COUNT(*) AS n FROM jobs WHERE run_s > (SELECT AVG(run_s) FROM jobs)"),
        format!("n\n{above}\n")
    );
    let population = (known.iter().map(|r| (r - mean).powi(2)).sum::<f64>() / known.len() as f64).sqrt();
    let got: f64 = csv("SELECT stddev_pop(run_s) AS s FROM jobs").lines().nth(1).unwrap().parse().unwrap();
    assert!((got - population).abs() <= 1e-9 * population, "{got} vs {population}");
    // LOG(b, x) is the logarithm of x to base b (PostgreSQL): by hand 2 and 3.
    assert_eq!(csv("SELECT LOG(10, 100) AS a, LOG(2, 8) AS b"), "a,b\n2.0,3.0\n");
    // date_trunc to the day counts the same jobs per day as CAST(... AS DATE).
    let trunc = csv("SELECT COUNT(DISTINCT date_trunc('day', submit_time)) AS n FROM jobs");
    assert_eq!(trunc, csv("SELECT COUNT(DISTINCT CAST(submit_time AS DATE)) AS n FROM jobs"));
    // start + run_s seconds is the end time wherever the trace's run_s is
    // end - start (counted here in microseconds).
    let micros = |c: &str| jobs.column(c).unwrap().cast(&DataType::Int64).unwrap().i64().unwrap().clone();
    let (start, end) = (micros("start_time"), micros("end_time"));
    let run = jobs.column("run_s").unwrap().f64().unwrap().clone();
    let ends = (start.iter().zip(end.iter()).zip(run.iter()))
        .filter(|((s, e), r)| matches!((s, e, r), (Some(s), Some(e), Some(r)) if (e - s) as f64 == r * 1e6))
        .count();
    assert!(ends > 100, "the sample must have jobs with all three times");
    let sql = "SELECT COUNT(*) AS n FROM jobs WHERE start_time + run_s * INTERVAL '1 second' = end_time";
    assert_eq!(csv(sql), format!("n\n{ends}\n"));
    // A FULL JOIN keeps the key of either side, in the form the refusal of
    // USING there gives: every VC.
    let vcs = philly().column("vc").unwrap().n_unique().unwrap();
    let sql = "WITH a AS (SELECT vc FROM philly_jobs WHERE gpus > 4 GROUP BY vc), \
               b AS (SELECT vc FROM philly_jobs WHERE gpus <= 4 OR gpus IS NULL GROUP BY vc) \
               SELECT COUNT(COALESCE(a.vc, b.vc)) AS n FROM a FULL JOIN b ON a.vc = b.vc";
    assert_eq!(csv(sql), format!("n\n{vcs}\n"));
}

/// DATE and string-to-date casts run with nothing on stderr.
#[test]
fn a_date_literal_prints_nothing_on_stderr() {
    for sql in [
        "SELECT COUNT(*) AS n FROM jobs WHERE CAST(submit_time AS DATE) = DATE '2020-06-30'",
        "SELECT COUNT(*) AS n FROM jobs WHERE CAST(submit_time AS DATE) = CAST('2020-06-30' AS DATE)",
    ] {
        let (code, out, err) = query(&[sql, "--format", "csv"]);
        assert_eq!((code, err.as_str()), (0, ""), "{sql}");
        assert_ne!(out, "n\n0\n", "{sql}: no rows on a day the samples have");
    }
}

/// Functions and operators give their standard results (64-bit calendar
/// fields and counts, covariance of one pair, three-valued truth tests,
/// set operations read left to right, fractional intervals, POWER and
/// RIGHT), checked against values computed here from the sample's Philly
/// jobs or by hand.
#[test]
fn functions_give_their_standard_results() {
    let jobs = read_parquet(&sample_store().join("philly/jobs.parquet"));
    let micros = jobs.column("submit_time").unwrap().cast(&DataType::Int64).unwrap();
    // Hour of the week, Sunday 0 (SQL's DOW), past 127 (the previous engine
    // computed DOW and HOUR in 8 bits).
    let mut by_hour = std::collections::BTreeMap::<i64, usize>::new();
    for t in micros.i64().unwrap().iter().flatten() {
        let at = chrono::DateTime::from_timestamp_micros(t).unwrap();
        let how = i64::from(chrono::Datelike::weekday(&at).num_days_from_sunday()) * 24
            + i64::from(chrono::Timelike::hour(&at));
        *by_hour.entry(how).or_default() += 1;
    }
    assert!(by_hour.keys().any(|&h| h > 127), "the sample must have hours of the week past 127");
    let want: String = by_hour.iter().map(|(h, n)| format!("{h},{n}\n")).collect();
    let sql = "SELECT EXTRACT(DOW FROM submit_time) * 24 + EXTRACT(HOUR FROM submit_time) AS how, COUNT(*) AS n \
               FROM philly_jobs GROUP BY 1 ORDER BY 1";
    assert_eq!(csv(sql), format!("how,n\n{want}"));
    // COUNT is a signed 64-bit integer: the difference is negative.
    let nulls = jobs.column("run_s").unwrap().null_count();
    assert!(nulls > 0, "the sample must have jobs without a run time");
    let sql = "SELECT COUNT(run_s) - COUNT(*) AS d FROM philly_jobs";
    assert_eq!(csv(sql), format!("d\n-{nulls}\n"));
    let sql = "SELECT ROW_NUMBER() OVER (ORDER BY job_id) - 2 AS r FROM philly_jobs ORDER BY r LIMIT 1";
    assert_eq!(csv(sql), "r\n-1\n");
    // A column cast to INTEGER (rounded, halves to even) summed in 64 bits:
    // queue times in ms, each within 32 bits (under 2e6 s), over every
    // trace of the unified table.
    let all = read_parquet(&sample_store().join("jobs.parquet"));
    let queue = all.column("queue_s").unwrap().f64().unwrap().clone();
    let total: i64 = queue.iter().flatten().filter(|&q| q < 2e6).map(|q| (q * 1000.0).round_ties_even() as i64).sum();
    assert!(total > i64::from(i32::MAX), "the total must not fit 32 bits");
    let sql = "SELECT SUM(CAST(queue_s * 1000 AS INTEGER)) AS s FROM jobs WHERE queue_s < 2000000";
    assert_eq!(csv(sql), format!("s\n{total}\n"));
    // The sample covariance of queue and run time per VC, NULL (an empty
    // field) where a VC has fewer than two pairs.
    let vcs = jobs.column("vc").unwrap().str().unwrap().clone();
    let run = jobs.column("run_s").unwrap().f64().unwrap().clone();
    let mut pairs = std::collections::BTreeMap::<String, Vec<(f64, f64)>>::new();
    let philly_queue = jobs.column("queue_s").unwrap().f64().unwrap().clone();
    for ((vc, q), r) in vcs.iter().zip(philly_queue.iter()).zip(run.iter()) {
        let entry = pairs.entry(vc.unwrap().to_string()).or_default();
        if let (Some(q), Some(r)) = (q, r) {
            entry.push((q, r));
        }
    }
    assert!(pairs.values().any(|p| p.len() == 1), "the sample must have a VC with one pair");
    let sql = "SELECT vc, COVAR_SAMP(queue_s, run_s) AS c FROM philly_jobs GROUP BY vc ORDER BY vc";
    let out = csv(sql);
    let rows: Vec<&str> = out.lines().skip(1).collect();
    assert_eq!(rows.len(), pairs.len(), "{out}");
    for (row, (vc, p)) in rows.iter().zip(&pairs) {
        let (got_vc, got) = row.split_once(',').unwrap();
        assert_eq!(got_vc, vc);
        if p.len() < 2 {
            assert_eq!(got, "", "{row}");
            continue;
        }
        let n = p.len() as f64;
        let (mq, mr) = (p.iter().map(|x| x.0).sum::<f64>() / n, p.iter().map(|x| x.1).sum::<f64>() / n);
        let want = p.iter().map(|(q, r)| (q - mq) * (r - mr)).sum::<f64>() / (n - 1.0);
        let got: f64 = got.parse().unwrap();
        assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{row}: want {want}");
    }
    // IS TRUE is FALSE, not NULL, on the jobs without a GPU count: NOT
    // (... IS TRUE) keeps them.
    let gpus = jobs.column("gpus").unwrap().cast(&DataType::Float64).unwrap();
    let not_big = gpus.f64().unwrap().iter().filter(|g| g.is_none_or(|g| g <= 4.0)).count();
    assert!(gpus.null_count() > 0, "the sample must have jobs without a GPU count");
    for sql in [
        "SELECT COUNT(*) AS n FROM philly_jobs WHERE NOT ((gpus > 4) IS TRUE)",
        "SELECT COUNT(*) AS n FROM philly_jobs WHERE (gpus > 4) IS FALSE OR gpus IS NULL",
        "SELECT COUNT(*) AS n FROM philly_jobs WHERE ((gpus > 4) IS TRUE) = FALSE",
    ] {
        assert_eq!(csv(sql), format!("n\n{not_big}\n"), "{sql}");
    }
    // A EXCEPT B UNION C, read left to right: the VCs with a failed job and
    // no passed one, and those with a killed job.
    let status = jobs.column("status").unwrap().str().unwrap().clone();
    let with = |s: &str| -> std::collections::BTreeSet<String> {
        vcs.iter().zip(status.iter()).filter(|(_, st)| *st == Some(s)).map(|(v, _)| v.unwrap().to_string()).collect()
    };
    let mut want: Vec<String> = with("Failed").difference(&with("Pass")).cloned().collect();
    want.extend(with("Killed"));
    want.sort();
    want.dedup();
    assert!(!with("Failed").is_disjoint(&with("Pass")), "some VC must have both failed and passed jobs");
    let sql =
        "SELECT vc FROM philly_jobs WHERE status = 'Failed' EXCEPT SELECT vc FROM philly_jobs WHERE status = 'Pass' \
               UNION SELECT vc FROM philly_jobs WHERE status = 'Killed' ORDER BY vc";
    assert_eq!(csv(sql), format!("vc\n{}\n", want.join("\n")));
    // A fractional interval: 1.5 hours is 90 minutes.
    let sql = "SELECT COUNT(*) AS n FROM philly_jobs \
               WHERE submit_time + INTERVAL '1.5 hours' = submit_time + INTERVAL '90 minutes'";
    assert_eq!(csv(sql), format!("n\n{}\n", jobs.height() - jobs.column("submit_time").unwrap().null_count()));
    // By hand: 2^40 = 1,099,511,627,776 (12 significant digits printed), 10^-2.
    let sql = "SELECT POWER(2, 40) AS p, POWER(10, -2) AS q, RIGHT('abc', 5) AS r, RIGHT('abc', 2) AS s, \
               UPPER('a') AS u, UPPER('a') AS v";
    assert_eq!(csv(sql), "p,q,r,s,u,v\n1099511627780.0,0.01,abc,bc,A,A\n");
}
