#!/usr/bin/env python3
"""PAI analysis benchmark: every `pai.*` analysis on a (full-scale synthetic) PAI store, and the core ones
(A8-A10 wait definitions, A13-A16 requests vs usage, Fig 7 = pai.machine-util) against the same definitions
in DuckDB SQL on the same Parquet; with --pandas, from the raw files to the A8-A16 numbers against pandas.

Usage:
  python3 bench/pai.py [--store DIR] [--scale S] [--tracelab PATH] [--work DIR] [--no-duckdb]
  python3 bench/pai.py --pandas [--raw DIR] [--scale S] [--tracelab PATH] [--work DIR]

Without --store (or --raw), a synthetic PAI trace is generated (`tracelab synth pai --scale S --seed 1`,
default 1.0 = full size, about 3.8 GB of CSV) under --work (default target/bench, <work>/pai-scale-S, shared
with bench/ingest.py and bench/query.py) and ingested (<work>/pai-scale-S-store). Each analysis runs as
`tracelab analyze ID --store STORE --format json` in its own process, twice:
  cold  after deleting <store>/.cache/derived, so the first analysis builds the derived-frame cache (its
        time includes the build, printed separately as cold - warm of that analysis);
  warm  with the cache in place (what every later run costs).
Prints wall time (perf_counter), CPU time (user + system) and peak RSS (wait4) per analysis and pass, the
totals, and for the core analyses the DuckDB twin's time, peak RSS, the tracelab (warm) / DuckDB wall
ratio, and the largest relative difference between tracelab's headline values and DuckDB's (they compute
the same definitions). CPU time is the steadier figure on a shared machine.

--pandas (issue 18: at least 20x faster than the owners' pandas code, at most 1/5 of its memory): from the
raw PAI CSV files (--raw, or the synthetic trace above) to the numbers of notebook cells A8-A11 and
A13-A16, each side measured with wait4 after one untimed read of the CSVs (both start from a warm page cache):
  tracelab  `tracelab ingest RAW --out FRESH_STORE`, then the six analyses pai.wait-over-completion,
            pai.wait-by-gpu-request, pai.wait-by-gpu-type, pai.task-share-by-gpu, pai.request-vs-usage and
            pai.usage-minus-request, cold (the first builds the derived frames), one process each: wall and
            CPU summed, peak RSS the largest of the processes;
  pandas    bench/pai_pandas.py RAW, one process each way: the owners' frames (dfa, dfiw/dfw/dfws, dfas)
            and cells in pandas, reading the raw CSVs with their .header column names; once as the notebook
            runs them (--as-published: the set-up cell reads all seven tables, the helpers build a start_date
            column a row at a time, every frame stays alive), the baseline of the targets, and once lean
            (only what the cells need, frames freed once used), the least a careful pandas user pays;
  floor     (unless --no-duckdb) DuckDB converting every PAI CSV to Parquet in one process (bench/report.py's
            floor, PAI only): what reading the raw files into a columnar store once costs, whatever comes
            after, so pandas / floor bounds the speed-up of any tool that does; and DuckDB parsing every
            PAI CSV into its memory, writing nothing: pandas / that bounds the speed-up of any tool that
            reads the CSVs at all.
Prints all of them, the pandas / tracelab ratios of wall, CPU and peak RSS for both pandas runs, and the
largest relative difference between tracelab and each pandas run over every quantity both report: the headlines of the six analyses (A8 shares over half the
completion time; A9 sharing P90 and whole-GPU > 1000 s; A10 V100 and low-end P90; A11 the ten task shares;
A13-A15 the six medians; A16 the six plan > / < usage shares) and the rows of A9's and A10's quantile
tables (tasks, P50, P90, P99 per series).

Full scale: build the release binary (cargo build --release), then `python3 bench/pai.py` and
`python3 bench/pai.py --pandas` (both default to --scale 1 and target/release/tracelab). The pandas side
needs memory in proportion to the CSVs: 0.8 GB for the 0.3 GB at --scale 0.1, so expect about 10 GB at
full scale (3.8 GB of CSV). This is a benchmark, not a test: it asserts nothing, it
reports.
"""
import argparse
import json
import os
import re
import shutil
import sys
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent

# Shared by the DuckDB twins: the store's tables as views (file_row_number keeps the file order for the
# stable dfiw sort), the owners' frames as docs/definitions.md#pai-vocabulary-and-the-owners-frames defines
# them, seconds as tracelab computes them ((later - earlier) in microseconds / 1e6).
PRELUDE = r'''
import duckdb, json, sys
s = sys.argv[1].rstrip("/") + "/pai/"
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.execute("SET enable_progress_bar = false")
for t in ["job", "task", "instance", "sensor", "group_tag", "machine_spec", "machine_metric"]:
    con.execute(f"CREATE VIEW {t} AS SELECT * FROM read_parquet('{s}{t}.parquet', file_row_number=true)")
def secs(later, earlier):
    return f"((epoch_us({later}) - epoch_us({earlier})) / 1e6)"
# dfa: task JOIN job JOIN per-task instance aggregates over the raw instance table.
con.execute(f"""CREATE VIEW dfa AS
WITH inst AS (SELECT job_name, task_name, min(start_time) AS st_i, avg(run_s) AS runtime_i FROM instance GROUP BY ALL)
SELECT t.job_name, t.task_name, t.gpu_type, t.plan_gpu_pct, {secs('t.end_time', 't.start_time')} AS runtime, i.runtime_i,
       {secs('i.st_i', 't.start_time')} AS wait
FROM task t JOIN job j USING (job_name) JOIN inst i USING (job_name, task_name)""")
# dfiw: sort by status, start, end (nulls last, stable) and keep the LAST row per worker_name.
con.execute("""CREATE VIEW dfiw AS SELECT * EXCLUDE (rn) FROM (
  SELECT *, row_number() OVER (PARTITION BY worker_name ORDER BY status DESC NULLS FIRST,
      start_time DESC NULLS FIRST, end_time DESC NULLS FIRST, file_row_number DESC) AS rn
  FROM instance WHERE worker_name IS NOT NULL) WHERE rn = 1""")
# dfas: per task, sums over its dfiw rows that have a sensor row, inner-joined to dfa.
con.execute("""CREATE VIEW dfas AS SELECT a.* FROM (
  SELECT w.job_name, w.task_name,
    sum(coalesce(t.plan_cpu_pct, 0)) AS plan_cpu, sum(coalesce(t.plan_gpu_pct, 0)) AS plan_gpu,
    sum(coalesce(t.plan_mem_gib, 0)) AS plan_mem, sum(coalesce(x.cpu_usage_pct, 0)) AS cpu_usage,
    sum(coalesce(x.gpu_wrk_util_pct, 0)) AS gpu_util, sum(coalesce(x.avg_mem_gib, 0)) AS avg_mem,
    sum(coalesce(x.avg_gpu_wrk_mem_gib, 0)) AS avg_gpu_mem, sum(coalesce(m.cap_cpu, 0)) AS cap_cpu,
    sum(coalesce(m.cap_gpu, 0)) AS cap_gpu, sum(coalesce(m.cap_mem_gib, 0)) AS cap_mem
  FROM dfiw w JOIN sensor x USING (worker_name)
  LEFT JOIN task t ON t.job_name = w.job_name AND t.task_name = w.task_name
  LEFT JOIN machine_spec m ON m.machine = w.machine GROUP BY ALL) a
JOIN (SELECT DISTINCT job_name, task_name FROM dfa) d USING (job_name, task_name)""")
def one(sql):
    return con.execute(sql).fetchone()[0]
out = {}
'''

# A8: wait over completion time, short vs long at the median mean-instance runtime; +-inf ratios (zero
# completion time) count in the shares, NaN ratios (0 / 0) and nulls are left out.
DUCK_A8 = PRELUDE + r'''
con.execute("CREATE TABLE r AS SELECT runtime_i, 100 * wait / runtime AS ratio, runtime, wait FROM dfa")
med = one("SELECT quantile_cont(runtime_i, 0.5) FROM r")
for cls, cond in [("short", f"runtime_i <= {med}"), ("long", f"runtime_i > {med}")]:
    valid = f"wait IS NOT NULL AND runtime IS NOT NULL AND NOT (runtime = 0 AND wait = 0) AND {cond}"
    over = "(runtime <> 0 AND ratio > 50) OR (runtime = 0 AND wait > 0)"
    out[f"{cls}_over_half"] = one(f"SELECT 100.0 * count(*) FILTER (WHERE {over}) / count(*) FROM r WHERE {valid}")
    out[f"{cls}_p50"] = one(f"SELECT quantile_cont(ratio, 0.5) FROM r WHERE {valid} AND runtime <> 0")
print(json.dumps(out))
'''

# A9: queueing delay by GPU-request bin; sharing (< 1 GPU) P90 and whole-GPU tasks waiting > 1000 s.
DUCK_A9 = PRELUDE + r'''
bins = ["plan_gpu_pct < 25", "plan_gpu_pct >= 25 AND plan_gpu_pct < 50", "plan_gpu_pct >= 50 AND plan_gpu_pct < 100",
        "plan_gpu_pct = 100", "plan_gpu_pct > 100"]
con.execute("CREATE TABLE r AS SELECT plan_gpu_pct, wait FROM dfa WHERE wait IS NOT NULL")
for i, b in enumerate(bins):
    out[f"bin{i}_p90"] = one(f"SELECT quantile_cont(wait, 0.9) FROM r WHERE {b}")
out["sharing_p90"] = one("SELECT quantile_cont(wait, 0.9) FROM r WHERE plan_gpu_pct < 100")
out["whole_over_1000"] = one("SELECT 100.0 * count(*) FILTER (WHERE wait > 1000) / count(*) FROM r WHERE plan_gpu_pct >= 100")
print(json.dumps(out))
'''

# A10: queueing delay by assigned GPU type; V100 P90 and low-end (T4, P100, MISC) P90.
DUCK_A10 = PRELUDE + r'''
con.execute("CREATE TABLE r AS SELECT gpu_type, wait FROM dfa WHERE wait IS NOT NULL")
for t in ["T4", "MISC", "P100", "V100", "V100M32"]:
    out[f"{t}_p90"] = one(f"SELECT quantile_cont(wait, 0.9) FROM r WHERE gpu_type = '{t}'")
out["v100_p90"] = out["V100_p90"]
out["low_end_p90"] = one("SELECT quantile_cont(wait, 0.9) FROM r WHERE gpu_type IN ('T4', 'P100', 'MISC')")
print(json.dumps(out))
'''

# A13-A15: medians of the task totals (dfas) of requests and usages; the memory panel uses GPU memory as
# upstream does.
DUCK_A13 = PRELUDE + r'''
con.execute("CREATE TABLE r AS SELECT * FROM dfas")
for part, req, use, div in [("cpu", "plan_cpu", "cpu_usage", 100), ("gpu", "plan_gpu", "gpu_util", 100),
                            ("mem", "plan_mem", "avg_gpu_mem", 1)]:
    out[f"{part}_request_p50"] = one(f"SELECT quantile_cont({req}, 0.5) FROM r") / div
    out[f"{part}_usage_p50"] = one(f"SELECT quantile_cont({use}, 0.5) FROM r") / div
print(json.dumps(out))
'''

# A16: shares of tasks whose (plan - usage) / capacity is > 0 and < 0; x / 0 is +-inf for x != 0 (counted,
# as numpy does) and NaN for 0 (left out).
DUCK_A16 = PRELUDE + r'''
con.execute("CREATE TABLE r AS SELECT * FROM dfas")
for name, num, cap in [("cpu", "plan_cpu - cpu_usage", "100 * cap_cpu"), ("gpu", "plan_gpu - gpu_util", "100 * cap_gpu"),
                       ("mem", "plan_mem - avg_mem", "cap_mem")]:
    valid = f"NOT ({cap} = 0 AND ({num}) = 0)"
    n = one(f"SELECT count(*) FROM r WHERE {valid}")
    out[f"{name}_plan_over_usage"] = 100.0 * one(f"SELECT count(*) FILTER (WHERE ({num}) > 0) FROM r WHERE {valid}") / n
    out[f"{name}_plan_under_usage"] = 100.0 * one(f"SELECT count(*) FILTER (WHERE ({num}) < 0) FROM r WHERE {valid}") / n
print(json.dumps(out))
'''

# Fig 7: explode machine_metric and sensor rows over the 5-minute bins they cover, mean / sum per machine and
# bin, every active 2/8-GPU machine in every bin (idle = 0), P50/P90 per class and bin; the headlines are the
# lowest and highest P90 GPU utilization over bins and the share of bins with P90 memory / GPU memory < 60 %.
DUCK_FIG7 = PRELUDE + r'''
B = 300 * 1000000
con.execute(f"""
CREATE TABLE x AS WITH r AS (SELECT machine, 0 AS src, machine_gpu_pct AS v0, machine_cpu_pct AS v1, start_time, end_time FROM machine_metric
  UNION ALL SELECT x.machine, 1, avg_mem_gib, avg_gpu_wrk_mem_gib, w.start_time, w.end_time FROM sensor x JOIN dfiw w USING (worker_name))
SELECT r.machine, src, v0, v1, unnest(range(floor(epoch_us(start_time) / {B})::BIGINT, floor((epoch_us(end_time) - 1) / {B})::BIGINT + 1)) AS bin
FROM r JOIN machine_spec p ON p.machine = r.machine AND p.cap_gpu IN (2, 8)
WHERE start_time IS NOT NULL AND end_time IS NOT NULL AND end_time > start_time""")
con.execute("""CREATE TABLE v AS SELECT machine, bin, avg(v0) FILTER (WHERE src = 0) AS gpu, avg(v1) FILTER (WHERE src = 0) AS cpu,
  sum(v0) FILTER (WHERE src = 1) AS mem, sum(v1) FILTER (WHERE src = 1) AS gmem FROM x GROUP BY ALL""")
con.execute("""
CREATE TABLE per AS WITH a AS (SELECT DISTINCT machine FROM x), b AS (SELECT range AS bin FROM range((SELECT min(bin) FROM x), (SELECT max(bin) + 1 FROM x))),
g AS (SELECT p.cap_gpu AS cls, b.bin, coalesce(v.gpu, 0) AS gpu, coalesce(v.cpu, 0) AS cpu, 100 * coalesce(v.mem, 0) / p.cap_mem_gib AS mem,
  100 * coalesce(v.gmem, 0) / (p.cap_gpu * CASE p.gpu_type WHEN 'V100M32' THEN 32 ELSE 16 END) AS gmem
  FROM a CROSS JOIN b JOIN machine_spec p ON p.machine = a.machine LEFT JOIN v ON v.machine = a.machine AND v.bin = b.bin)
SELECT cls, bin, quantile_cont(gpu, [0.5, 0.9]) AS gpu, quantile_cont(cpu, [0.5, 0.9]) AS cpu, quantile_cont(mem, [0.5, 0.9]) AS mem,
  quantile_cont(gmem, [0.5, 0.9]) AS gmem FROM g GROUP BY ALL""")
for cls, lo, hi, mem, gmem in con.execute("""SELECT cls, min(gpu[2]), max(gpu[2]), 100 * avg((mem[2] < 60)::INT),
        100 * avg((gmem[2] < 60)::INT) FROM per GROUP BY cls ORDER BY cls""").fetchall():
    out[f"{cls}-GPU gpu p90 min"], out[f"{cls}-GPU gpu p90 max"] = lo, hi
    out[f"{cls}-GPU mem p90 under 60"], out[f"{cls}-GPU gpu-mem p90 under 60"] = mem, gmem
print(json.dumps(out))
'''

DUCK = {
    "pai.wait-over-completion": DUCK_A8,
    "pai.wait-by-gpu-request": DUCK_A9,
    "pai.wait-by-gpu-type": DUCK_A10,
    "pai.request-vs-usage": DUCK_A13,
    "pai.usage-minus-request": DUCK_A16,
    "pai.machine-util": DUCK_FIG7,
}


def run(cmd, capture=False):
    """Runs cmd; returns (seconds, peak RSS in MB, stdout, CPU seconds) of the process (bench/measure.py)."""
    m = measure.run(cmd, capture)
    return m.secs, m.rss_mb, m.stdout, m.cpu


def headlines(output):
    """{key: value} of every headline in a tracelab JSON output."""
    out = json.loads(output)
    return {h["key"]: h["value"] for p in out["parts"] if p["kind"] == "headlines" for h in p["headlines"]}


def agreement(ours, theirs):
    """Largest relative difference over the keys both have, and how many."""
    keys = [k for k in theirs if k in ours and ours[k] is not None and theirs[k] is not None]
    worst = max((abs(ours[k] - theirs[k]) / max(abs(ours[k]), abs(theirs[k]), 1e-300) for k in keys), default=0.0)
    return worst, len(keys)


def raw_of(a, tl):
    """The raw PAI folder: --raw, or the synthetic trace at --scale (generated when missing)."""
    if a.raw is not None:
        return Path(a.raw)
    raw = Path(a.work) / f"pai-scale-{float(a.scale):g}"
    if not (raw / "pai_instance_table.csv").exists():
        secs = run([tl, "synth", "pai", "--scale", a.scale, "--seed", "1", "--out", str(raw), "--quiet"])[0]
        print(f"synth pai --scale {a.scale}: {secs:.1f} s")
    return raw


def store_of(a, tl):
    if a.store is not None:
        return Path(a.store)
    raw, store = raw_of(a, tl), Path(a.work) / f"pai-scale-{float(a.scale):g}-store"
    if not (store / "pai" / "manifest.json").exists():
        print(f"ingest: {run([tl, 'ingest', str(raw), '--out', str(store), '--quiet'])[0]:.1f} s")
    return store


def passes(tl, store, ids):
    """{id: [(secs, rss, stdout) cold, (...) warm]}."""
    shutil.rmtree(store / ".cache" / "derived", ignore_errors=True)  # the store's derived-frame cache
    res = {i: [] for i in ids}
    for _ in ("cold", "warm"):
        for i in ids:
            res[i].append(run([tl, "analyze", i, "--store", str(store), "--format", "json"], capture=True))
    return res


# bench/pai_pandas.py's two ways to the same numbers: the notebook's own path, and a lean rewrite.
PANDAS_WAYS = [("as published", ["--as-published"]), ("lean", [])]

# The analyses of notebook cells A8-A11 and A13-A16, the ones bench/pai_pandas.py computes.
CELLS = ["pai.wait-over-completion", "pai.wait-by-gpu-request", "pai.wait-by-gpu-type", "pai.task-share-by-gpu",
         "pai.request-vs-usage", "pai.usage-minus-request"]


def comparable(output):
    """{key: value} of a tracelab JSON output's headlines and of its `quantiles` table ("<series> <column>")."""
    out = headlines(output)
    for p in json.loads(output)["parts"]:
        if p["kind"] == "table" and p.get("name") == "quantiles":
            for row in p["rows"]:
                out.update({f"{row[0]} {c}": v for c, v in zip(p["columns"][1:], row[1:])})
    return out


def warm(raw):
    """Reads every CSV under raw once, untimed, so both sides start from the same page cache."""
    for f in sorted(Path(raw).glob("*.csv")):
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass


def from_raw(a, tl):
    """--pandas: tracelab (ingest + the six analyses, cold) against bench/pai_pandas.py, from the raw files."""
    raw = raw_of(a, tl)
    csv_mb = sum(f.stat().st_size for f in raw.glob("*.csv")) / 1e6
    store = Path(a.work) / "pai-from-raw-store"
    shutil.rmtree(store, ignore_errors=True)
    warm(raw)
    steps = [("tracelab ingest", run([tl, "ingest", str(raw), "--out", str(store), "--quiet"]))]
    ours = {}
    for i in CELLS:
        r = run([tl, "analyze", i, "--store", str(store), "--format", "json"], capture=True)
        steps.append((f"tracelab {i}", r))
        ours[i] = comparable(r[2])
    shutil.rmtree(store, ignore_errors=True)
    pandas_runs = {}  # way -> (secs, rss, {analysis: {key: value}}, cpu)
    for way, flags in PANDAS_WAYS:
        warm(raw)
        secs, rss, printed, cpu = run([sys.executable, str(ROOT / "bench" / "pai_pandas.py"), str(raw), *flags],
                                  capture=True)
        pandas_runs[way] = (secs, rss, json.loads(printed), cpu)
    floor = parse = None  # DuckDB's two floors: to Parquet, and parsing only
    if not a.no_duckdb:
        import report  # bench/report.py: DuckDB converting raw files, the floor of reading them once
        warm(raw)
        out = Path(a.work) / "pai-duckdb-floor"
        floor = report.duck(report.pai_statements(raw, out), out)
        warm(raw)
        parse = report.duck(report.pai_parse_statements(raw), out)

    import pandas
    ts, tc, tr = sum(r[0] for _, r in steps), sum(r[3] for _, r in steps), max(r[1] for _, r in steps)
    print(f"\nfrom raw PAI files to the A8-A11 and A13-A16 numbers: {raw} ({csv_mb:,.0f} MB of CSV), "
          f"{os.cpu_count()} cores")
    print(f"{'step':<40}{'wall s':>9}{'CPU s':>9}{'peak RSS MB':>13}")
    for name, (secs, rss, _, cpu) in steps:
        print(f"{name:<40}{secs:>9.2f}{cpu:>9.2f}{rss:>13.0f}")
    print(f"{'tracelab from raw (sum; peak = max)':<40}{ts:>9.2f}{tc:>9.2f}{tr:>13.0f}")
    for way, (ps, pr, _, pc) in pandas_runs.items():
        print(f"{'pandas ' + pandas.__version__ + ', ' + way:<40}{ps:>9.2f}{pc:>9.2f}{pr:>13.0f}")
    if floor is not None:
        fs, fc, fr, _ = floor
        print(f"{'duckdb: the CSVs to Parquet (floor)':<40}{fs:>9.2f}{fc:>9.2f}{fr:>13.0f}")
        print(f"{'duckdb: the CSVs parsed, nothing written':<40}{parse[0]:>9.2f}{parse[1]:>9.2f}{parse[2]:>13.0f}")
    for way, (ps, pr, _, pc) in pandas_runs.items():
        print(f"pandas ({way}) / tracelab: wall x{ps / ts:.1f}, CPU x{pc / tc:.1f}, peak RSS x{pr / tr:.1f}")
        if floor is not None:
            print(f"  pandas ({way}) / floor: wall x{ps / fs:.1f} (the most any tool that reads these CSVs into a "
                  f"columnar store once can gain); / parse: wall x{ps / parse[0]:.1f} (the most any tool that "
                  f"parses them at all can gain)")
    print("targets, against the notebook as published: tracelab >= 20x faster, <= 1/5 of the memory")
    if floor is not None:
        print(f"tracelab / floor: wall x{ts / fs:.2f}")
    for way, (_, _, theirs, _) in pandas_runs.items():
        print(f"\ntracelab against pandas, {way}")
        agreement_table(ours, theirs)


def agreement_table(ours, theirs):
    """Per analysis: how many quantities both report and the largest relative difference."""
    worst, total, missing = (0.0, ""), 0, []
    print(f"{'analysis':<28}{'quantities':>11}{'max rel diff':>14}  largest at")
    for i in CELLS:
        keys = [k for k in theirs[i] if k in ours[i]]
        missing += [f"{i} {k}" for k in theirs[i] if k not in ours[i]]
        diffs = [(rel(ours[i][k], theirs[i][k]), k) for k in keys]
        top = max(diffs, default=(0.0, ""))
        total += len(keys)
        worst = max(worst, (top[0], f"{i} {top[1]}"))
        print(f"{i:<28}{len(keys):>11}{top[0]:>14.1e}  {top[1] if top[0] else '(all equal)'}")
    print(f"{total} quantities compared; largest relative difference {worst[0]:.1e}"
          + (f" ({worst[1]})" if worst[0] else ""))
    if missing:
        print(f"not in tracelab's output (not compared): {', '.join(missing)}")


def rel(x, y):
    """Relative difference; two nulls agree, a null against a number is 1 (100 %)."""
    if x is None or y is None:
        return 0.0 if x is None and y is None else 1.0
    if x == y:
        return 0.0
    return abs(x - y) / max(abs(x), abs(y))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store")
    ap.add_argument("--scale", default="1")
    ap.add_argument("--tracelab", default=str(ROOT / "target/release/tracelab"))
    ap.add_argument("--work", default=str(ROOT / "target/bench"))
    ap.add_argument("--no-duckdb", action="store_true")
    ap.add_argument("--pandas", action="store_true", help="from the raw files: tracelab against the owners' "
                    "definitions in pandas (bench/pai_pandas.py)")
    ap.add_argument("--raw", help="raw PAI folder for --pandas (default: the synthetic trace at --scale)")
    a = ap.parse_args()
    tl = a.tracelab
    if not Path(tl).exists():
        sys.exit(f"{tl} not found: run `cargo build --release` first")
    if a.pandas:
        return from_raw(a, tl)
    store = store_of(a, tl)
    listing = run([tl, "analyze", "--list"], capture=True)[2]
    # `analyze --list` prints CSV when stdout is not a terminal, a table otherwise: take the leading id.
    ids = sorted(set(re.findall(r"^\W*(pai\.[a-z0-9-]+)", listing, flags=re.M)))
    res = passes(tl, store, ids)
    print(f"{'analysis':28} {'cold s':>7} {'warm s':>7} {'cpu s':>6} {'RSS MB':>7} {'duckdb s':>9} {'cpu s':>6} "
          f"{'RSS MB':>7} {'ratio':>6}  headlines vs duckdb")
    for i in ids:
        (cs, cr, _, _), (ws, wr, wout, wc) = res[i]
        line = f"{i:28} {cs:7.2f} {ws:7.2f} {wc:6.2f} {max(cr, wr):7.0f}"
        if i in DUCK and not a.no_duckdb:
            ds, dr, dout, dc = run([sys.executable, "-c", DUCK[i], str(store)], capture=True)
            worst, n = agreement(headlines(wout), json.loads(dout))
            line += f" {ds:9.2f} {dc:6.2f} {dr:7.0f} {ws / ds:6.2f}  {n} shared, max rel diff {worst:.1e}"
        print(line, flush=True)

    def total(run_index, field):
        return sum(r[run_index][field] for r in res.values())

    peak = max(max(r[0][1], r[1][1]) for r in res.values())
    first = ids[0]
    print(f"{'total (sequential)':28} {total(0, 0):7.2f} {total(1, 0):7.2f} {total(1, 3):6.2f} {peak:7.0f}"
          f"   (cold CPU {total(0, 3):.2f} s)")
    print(f"derived-frame build (in the cold {first}): {res[first][0][0] - res[first][1][0]:.2f} s wall, "
          f"{res[first][0][3] - res[first][1][3]:.2f} s CPU")


if __name__ == "__main__":
    main()
