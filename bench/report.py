#!/usr/bin/env python3
"""Report benchmark: `tracelab report` over full-scale synthetic PAI + Philly + Helios + AcmeTrace + spot-GPU,
from the raw files.

Usage:
  python3 bench/report.py [--scale S] [--runs N] [--tracelab PATH] [--work DIR] [--no-duckdb]

Generates (once, under --work, default target/bench) the five synthetic traces at --scale (default 1.0 =
full size: about 4 GB of PAI CSV, 7 GB of Philly, 0.2 GB of Helios, 0.14 GB of AcmeTrace, 0.03 GB of the
spot-GPU trace) and links them into one trace folder.
Then, each as one process measured with wait4 (wall time, CPU time, peak RSS):
  1. cold, --runs times (default 3): `tracelab report DIR --store STORE --out OUT` with a fresh store and
     output folder each time (ingest included, no cache);
  2. cached: the same command again over the last cold run's store and output (the re-render);
  3. rerun:  `--no-cache` over that ingested store (every analysis again, no ingest).
Prints every cold run, their median and the largest peak RSS, then the cached and no-cache passes.
Targets: cold median < 120 s and peak RSS < 3 GB on 2 cores (issue 18); cached < 60 s (issue 6).

Second tool in the same run (unless --no-duckdb): after each cold run, one DuckDB process (wait4) converts
ALL the raw files of the five traces to Parquet (zstd), the floor for anything that must read the raw
traces once:
  PAI     every pai_*.csv, no header row, column names from its .header file, types as bench/ingest.py
          (and philly_runtime.csv when present);
  Philly  cluster_job_log (the JSON list, jobs with their nested attempts; submitted_time parsed),
          cluster_gpu_util (time parsed with its PDT/PST offset to UTC, NA = null, the trailing empty
          field dropped), cluster_cpu_util, cluster_mem_util, cluster_machine_list;
  Helios  per cluster, cluster_log.csv (times parsed) and every other CSV present (cluster_gpu_number.csv
          in the synthetic output), types detected;
  AcmeTrace trace_seren.csv and trace_kalos.csv, spot-GPU job_info_df.csv and node_info_df.csv, with a
          header row, typed as bench/ingest.py types them (AcmeTrace's stamps TIMESTAMPTZ, offsets honoured).
Prints the floor of each round (and its split by trace, timed inside the DuckDB process), their median, and
the ratio report / floor per round and of the medians.

Full scale: build the release binary (cargo build --release), then `python3 bench/report.py` (defaults:
--scale 1, --runs 3, target/release/tracelab; the raw traces take about 10.5 GB under target/bench, plus
the store and DuckDB's Parquet while they exist). Small-scale trial with a dev build:
`python3 bench/report.py --scale 0.02 --tracelab target/debug/tracelab` (its timings mean nothing). This is a benchmark, not a test: it asserts
nothing, it reports.
"""
import argparse
import json
import os
import shutil
import statistics
import sys
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))


def run(cmd, capture=False):
    """Runs cmd; returns (seconds, peak RSS in MB, stderr, CPU seconds, stdout) of the process (bench/measure.py)."""
    m = measure.run(cmd, capture)
    return m.secs, m.rss_mb, m.stderr, m.cpu, m.stdout


def raw_traces(tracelab, work, scale):
    """{trace: raw folder} of the five synthetic traces under work, generated when missing."""
    raws = {}
    probes = [("pai", "pai_instance_table.csv"), ("philly", "cluster_job_log"), ("helios", "Venus"),
              ("acme", "trace_kalos.csv"), ("spot", "job_info_df.csv")]
    for trace, probe in probes:
        raw = work / f"{trace}-raw-{scale:g}"
        if not (raw / probe).exists():
            print(f"generating {raw} ...", flush=True)
            secs, rss, *_ = run([tracelab, "synth", trace, "--scale", scale, "--out", raw, "--quiet"])
            print(f"  {secs:.0f} s, peak RSS {rss:.0f} MB", flush=True)
        raws[trace] = raw
    return raws


def linked(raws, work, scale):
    """One folder with the five traces' files linked in (what `tracelab report` reads). Folders (Helios's
    clusters) are made as real folders with their files linked: ingest does not follow a linked folder."""
    both = work / f"report-traces-{scale:g}"
    both.mkdir(parents=True, exist_ok=True)

    def mirror(src, dst):
        for entry in (e for e in src.iterdir() if not e.name.startswith(".")):
            link = dst / entry.name
            if entry.is_dir():
                if link.is_symlink():  # left by an earlier version of this script
                    link.unlink()
                link.mkdir(exist_ok=True)
                mirror(entry, link)
            elif not link.exists():
                link.symlink_to(entry.resolve())

    for raw in raws.values():
        mirror(raw, both)
    return both


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=3, help="cold runs (default 3)")
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    ap.add_argument("--no-duckdb", action="store_true")
    args = ap.parse_args()
    if not args.tracelab.exists():
        sys.exit(f"{args.tracelab} not found: run `cargo build --release` first")
    args.work.mkdir(parents=True, exist_ok=True)
    args.work = args.work.resolve()
    raws = raw_traces(args.tracelab, args.work, args.scale)
    dirs = linked(raws, args.work, args.scale)
    raw_mb = sum(p.stat().st_size for raw in raws.values() for p in raw.rglob("*") if p.is_file()) / 1e6
    floor = None if args.no_duckdb else statements(raws, args.work / "report-duckdb")
    store, out = args.work / "report-store", args.work / "report-out"
    cmd = [args.tracelab, "report", dirs, "--store", store, "--out", out]

    colds, floors = [], []
    for k in range(1, args.runs + 1):
        shutil.rmtree(store, ignore_errors=True)
        shutil.rmtree(out, ignore_errors=True)
        print(f"cold run {k}/{args.runs} ...", flush=True)
        secs, rss, err, cpu, _ = run(cmd)
        colds.append((secs, cpu, rss))
        if k == 1:
            slowest = sorted((l for l in err.splitlines() if l.startswith("[")), key=lambda l: -seconds_of(l))[:8]
            print("  slowest analyses:\n    " + "\n    ".join(slowest), flush=True)
        if floor is not None:
            print(f"duckdb floor {k}/{args.runs} ...", flush=True)
            floors.append(duck(floor, args.work / "report-duckdb"))
    passes = []
    for name, extra in [("cached re-render", []), ("rerun --no-cache", ["--no-cache"])]:
        print(f"{name} ...", flush=True)
        secs, rss, _, cpu, _ = run(cmd + extra)
        passes.append((name, secs, cpu, rss))

    print(f"\nreport over {dirs} ({raw_mb:,.0f} MB of raw files), {os.cpu_count()} cores")
    print(f"{'run':<26}{'seconds':>10}{'CPU s':>10}{'peak RSS MB':>14}")
    for k, (secs, cpu, rss) in enumerate(colds, 1):
        print(f"{'cold ' + str(k) + ' (ingest + report)':<26}{secs:>10.1f}{cpu:>10.1f}{rss:>14.0f}")
    cold_med = statistics.median(c[0] for c in colds)
    print(f"{f'cold median of {len(colds)}':<26}{cold_med:>10.1f}{statistics.median(c[1] for c in colds):>10.1f}"
          f"{max(c[2] for c in colds):>14.0f} (max)")
    for name, secs, cpu, rss in passes:
        print(f"{name:<26}{secs:>10.1f}{cpu:>10.1f}{rss:>14.0f}")
    print("targets: cold median < 120 s and peak RSS < 3072 MB (issue 18); cached < 60 s")
    if floors:
        import duckdb
        print(f"\nDuckDB {duckdb.__version__} converting all raw files of the five traces to Parquet, one process "
              f"per round (split by trace timed inside it):")
        print(f"{'round':<10}{'seconds':>10}{'CPU s':>10}{'peak RSS MB':>14}{'pai s':>9}{'philly s':>10}"
              f"{'helios s':>10}{'acme s':>8}{'spot s':>8}{'report/floor':>14}")
        for k, ((secs, cpu, rss, split), cold) in enumerate(zip(floors, colds), 1):
            print(f"{k:<10}{secs:>10.1f}{cpu:>10.1f}{rss:>14.0f}{split.get('pai', 0):>9.1f}"
                  f"{split.get('philly', 0):>10.1f}{split.get('helios', 0):>10.1f}{split.get('acme', 0):>8.1f}"
                  f"{split.get('spot', 0):>8.1f}{cold[0] / secs:>14.2f}")
        floor_med = statistics.median(f[0] for f in floors)
        print(f"{'median':<10}{floor_med:>10.1f}{statistics.median(f[1] for f in floors):>10.1f}"
              f"{max(f[2] for f in floors):>14.0f}{'':>45}{cold_med / floor_med:>14.2f} (peak RSS: max)")
        print(f"tracelab's whole cold report (median) = x{cold_med / floor_med:.2f} DuckDB's conversion of all "
              f"the raw files (median)")


def seconds_of(line):
    try:
        return float(line.rsplit("(", 1)[1].split()[0])
    except (IndexError, ValueError):
        return 0.0


# The DuckDB side: runs a JSON list of [trace, COPY statement] in order, prints {trace: seconds}.
DUCK = r'''
import duckdb, json, sys, time
con = duckdb.connect()
con.execute("SET TimeZone = 'UTC'")
con.execute("SET enable_progress_bar = false")
took = {}
for trace, sql in json.load(open(sys.argv[1])):
    start = time.perf_counter()
    con.execute(sql)
    took[trace] = took.get(trace, 0.0) + time.perf_counter() - start
print(json.dumps(took))
'''

PARQUET = "(FORMAT parquet, COMPRESSION zstd)"
# Philly's utilization files: 'YYYY-MM-DD HH:MM:SS PDT|PST', to UTC.
PHILLY_TIME = ("(strptime(left(time, 19), '%Y-%m-%d %H:%M:%S') + "
               "CASE right(time, 3) WHEN 'PDT' THEN INTERVAL 7 HOUR ELSE INTERVAL 8 HOUR END)")
JOB_LOG = ("{'status': 'VARCHAR', 'vc': 'VARCHAR', 'jobid': 'VARCHAR', 'attempts': 'STRUCT(start_time VARCHAR, "
           "end_time VARCHAR, detail STRUCT(ip VARCHAR, gpus VARCHAR[])[])[]', 'submitted_time': 'VARCHAR', "
           "'user': 'VARCHAR'}")
HELIOS_LOG = {"job_id": "BIGINT", "user": "VARCHAR", "vc": "VARCHAR", "gpu_num": "BIGINT", "cpu_num": "BIGINT",
              "node_num": "BIGINT", "state": "VARCHAR", "submit_time": "TIMESTAMP", "start_time": "TIMESTAMP",
              "end_time": "TIMESTAMP", "duration": "BIGINT", "queue": "BIGINT"}


def columns(spec):
    return "{" + ", ".join(f"'{c}': '{t}'" for c, t in spec) + "}"


def pai_sources(pai):
    """[(stem, DuckDB read_csv(...) of that PAI CSV with its column names and types)]."""
    import ingest  # bench/ingest.py: the PAI column types
    sources = []
    for csv in sorted(pai.glob("*.csv")):
        header = csv.with_suffix(".header")
        if header.exists():
            names = header.read_text().strip().split(",")
            spec = columns((c, ingest.TYPES.get(c, "DOUBLE")) for c in names)
            sources.append((csv.stem, f"read_csv('{csv}', header=false, columns={spec})"))
        else:
            sources.append((csv.stem, f"read_csv('{csv}', header=true)"))
    return sources


def pai_statements(pai, out):
    """[("pai", COPY ... TO out/...)] converting every PAI CSV (also bench/pai.py --pandas's floor)."""
    return [("pai", f"COPY (SELECT * FROM {src}) TO '{out}/pai-{stem}.parquet' {PARQUET}")
            for stem, src in pai_sources(pai)]


def pai_parse_statements(pai):
    """[("pai", CREATE TABLE ... AS SELECT * FROM read_csv(...))]: every PAI CSV parsed into DuckDB's
    memory and nothing written (bench/pai.py --pandas's lower floor)."""
    return [("pai", f"CREATE TABLE t{i} AS SELECT * FROM {src}") for i, (_, src) in enumerate(pai_sources(pai))]


def statements(raws, out):
    """[(trace, COPY ... TO out/...)] converting every raw file of the five traces."""
    todo = pai_statements(raws["pai"], out)
    ph = raws["philly"]
    todo.append(("philly", f"""COPY (SELECT * EXCLUDE (submitted_time),
        try_strptime(submitted_time, '%Y-%m-%d %H:%M:%S') AS submitted_time
        FROM read_json('{ph}/cluster_job_log', format='array', columns={JOB_LOG}))
        TO '{out}/philly-jobs.parquet' {PARQUET}"""))
    gpus = [("time", "VARCHAR"), ("machine", "VARCHAR")] + [(f"gpu{i}", "DOUBLE") for i in range(8)] + [("extra", "VARCHAR")]
    utils = {
        "cluster_gpu_util": gpus,
        "cluster_cpu_util": [("time", "VARCHAR"), ("machine", "VARCHAR"), ("cpu_util", "DOUBLE")],
        "cluster_mem_util": [("time", "VARCHAR"), ("machine", "VARCHAR"), ("mem_total", "DOUBLE"), ("mem_free", "DOUBLE")],
    }
    for name, spec in utils.items():
        todo.append(("philly", f"""COPY (SELECT {PHILLY_TIME} AS time, * EXCLUDE (time{', extra' if name == 'cluster_gpu_util' else ''})
            FROM read_csv('{ph}/{name}', header=false, skip=1, nullstr='NA', columns={columns(spec)}))
            TO '{out}/philly-{name}.parquet' {PARQUET}"""))
    machines = columns([("machine", "VARCHAR"), ("gpus", "BIGINT"), ("gpu_mem", "VARCHAR")])
    todo.append(("philly", f"""COPY (SELECT machine, gpus, trim(gpu_mem) AS gpu_mem
        FROM read_csv('{ph}/cluster_machine_list', header=false, skip=1, columns={machines}))
        TO '{out}/philly-cluster_machine_list.parquet' {PARQUET}"""))

    he = raws["helios"]
    for cluster in sorted(d for d in he.iterdir() if d.is_dir() and not d.name.startswith(".")):
        for csv in sorted(cluster.glob("*.csv")):
            if csv.name == "cluster_log.csv":
                src = f"read_csv('{csv}', header=true, columns={columns(HELIOS_LOG.items())})"
            else:
                src = f"read_csv('{csv}', header=true)"
            todo.append(("helios", f"COPY (SELECT * FROM {src}) TO '{out}/helios-{cluster.name}-{csv.stem}.parquet' {PARQUET}"))

    import ingest  # bench/ingest.py: the AcmeTrace and spot-GPU column types
    for trace in ["acme", "spot"]:
        for name, (_, cols, types) in ingest.TRACES[trace][0].items():
            spec = columns((c, types.get(c, "DOUBLE")) for c in cols.split(","))
            src = f"read_csv('{raws[trace] / name}', header=true, columns={spec})"
            todo.append((trace, f"COPY (SELECT * FROM {src}) TO '{out}/{trace}-{name[:-4]}.parquet' {PARQUET}"))
    return todo


def duck(todo, out):
    """(seconds, CPU seconds, peak RSS MB, {trace: seconds}) of one DuckDB process running todo."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    plan = out.parent / "report-duckdb.json"
    plan.write_text(json.dumps(todo))
    try:
        secs, rss, _, cpu, stdout = run([sys.executable, "-c", DUCK, plan], capture=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        plan.unlink()
    return secs, cpu, rss, json.loads(stdout)


if __name__ == "__main__":
    main()
