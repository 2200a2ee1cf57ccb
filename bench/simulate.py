#!/usr/bin/env python3
"""Simulation benchmark: `tracelab simulate` over full-scale synthetic PAI (about 1 M tasks, 6,742 GPUs)
and Philly (117 k jobs), one process per policy, measured with wait4 (wall time, peak RSS).

Usage:
  python3 bench/simulate.py [--scale S] [--tracelab PATH] [--work DIR] [--policies LIST]
                            [--online N] [--sharing-only] [--pai-sim DIR [--sample N]]

Generates (once, under --work, default target/bench, shared with bench/report.py) the synthetic raw
traces at --scale (default 1.0 = full size) with `tracelab synth`, ingests each into its own store, and
runs per trace and policy
    tracelab simulate --store STORE --trace T --policy P --cluster from-trace --format csv
(greedy discipline, pack placement). Wall time and RSS are the whole process: reading the store, building
the workload and the cluster, the replay and the output. jobs/s = replayed jobs / wall time.
Targets (issue 16): the full PAI trace under every non-preemptive policy in under 10 s each on 2 cores,
under 1 GB peak RSS. Preemptive policies (srtf, las) run on Philly only unless --policies names them.
The GPU-sharing policies (issue 33: exclusive, time-sharing, priority-time-sharing, horus, muxflow) run
on PAI with the measured usage they read (the sensor table) and --online N services (default 674, a
tenth of the GPUs) whose load follows a day-shaped profile file the bench writes (hourly, a cosine
between 0.5x and 1.5x of the mean, peaking at 14:00 UTC); target: horus and
muxflow in under 20 s each, under 1.5 GB. No public simulator of Horus or MuxFlow exists, so their
second figure is tracelab's own fifo on the same store in the same run (what the sharing machinery
costs), beside the PAI simulator's when --pai-sim is given.

--pai-sim DIR (a checkout of alibaba/clusterdata's cluster-trace-gpu-v2020/simulator, kept outside this
repository): a seeded --sample (default 20,000) of the PAI tasks is exported as the PAI simulator's input
columns (job_id, user, submit_time, duration, num_gpu with num_inst 1, i.e. the task's whole demand) and
replayed by both, FIFO and SJF, on the PAI simulator's default topology (one node of 6,742 GPUs, greedy
allocation, packing node order = our first-fit), through bench/crosscheck_sim.py's driver; prints both
wall times, the ratio and both mean JCTs. The PAI simulator imports numpy and matplotlib, and the export
reads Parquet with DuckDB: run with a Python that has the three, e.g. a venv under target/.
Scaling cases (issue 31; --cases scaling runs only these): the algorithms that used to grow worse than
n log n, each at two sizes 10x apart, from seeded CSV job lists replayed with `tracelab simulate --jobs`:
  * placement: one 3,600 s job over every node of 1,250 and of 12,500 8-GPU nodes (10,000 and 100,000 GPUs;
    fifo, pack): the multi-node placement was cubic in the nodes a job takes;
  * re-ranking: srtf and las with 10,000 and 100,000 jobs on 1,000 8-GPU nodes (Poisson arrivals at 95 % of
    the GPUs, 1-32 GPUs per job with mean 4.5, durations log-uniform from 10 s to a day; greedy, pack):
    preemptive passes re-sorted every running job.
Each is printed with its wall time and its growth over the 10x step beside what n log n would give
(10 x log(10n) / log(n)); below that growth the algorithm is at most n log n in this range (the smaller size
carries the process start, so a ratio under 10 says the start dominates). The earlier build cannot be run
for comparison here, so the second tool is HeliosArtifact's QSSF framework (--helios-qssf DIR, a checkout's
`framework/QSSF Service`, kept outside this repository; needs pandas) on the same jobs, as the engine's
cross-check drives it (bench/crosscheck_sim.py): its `srtf` for the re-ranking cases and its `fifo` with the
consolidating placer for the one-job cases (one VC of the same 8-GPU nodes, one-second ticks), up to
--peer-max-jobs jobs (default 10,000: its srtf ticks every second over every job). Its srtf ends a job one
tick late (docs/simulate.md), so its mean JCT is printed beside ours, not expected to match.
Targets: each of our cases under 10 s on 2 cores.

Build tracelab first: cargo build --release. A benchmark, not a test: it asserts nothing, it reports.
"""
import argparse
import csv
import math
import os
import random
import sys
import tempfile
import time
from pathlib import Path

import measure  # bench/measure.py: one process under wait4

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

NON_PREEMPTIVE = ["fifo", "sjf", "sjf-predicted", "qssf", "fair"]
PREEMPTIVE = ["srtf", "las"]
SHARING = ["exclusive", "time-sharing", "priority-time-sharing", "horus", "muxflow"]


def run(cmd):
    """Runs cmd; returns (seconds, peak RSS in MB, stdout) of the process (bench/measure.py)."""
    m = measure.run(cmd, capture=True)
    return m.secs, m.rss_mb, m.stdout


def store(tracelab, work, trace, scale):
    """A store holding the synthetic trace, generated and ingested when missing."""
    probe = {"pai": "pai_instance_table.csv", "philly": "cluster_job_log"}[trace]
    raw = work / f"{trace}-raw-{scale:g}"
    if not (raw / probe).exists():
        print(f"generating {raw} ...", flush=True)
        secs, rss, _ = run([tracelab, "synth", trace, "--scale", scale, "--out", raw, "--quiet"])
        print(f"  {secs:.0f} s, peak RSS {rss:.0f} MB", flush=True)
    st = work / f"sim-store-{trace}-{scale:g}"
    if not (st / "jobs.parquet").exists():
        print(f"ingesting {raw} -> {st} ...", flush=True)
        secs, rss, _ = run([tracelab, "ingest", raw, "--out", st, "--quiet"])
        print(f"  {secs:.0f} s, peak RSS {rss:.0f} MB", flush=True)
    return st


def profile_file(work):
    """A day-shaped online load profile (hourly steps, 0.5x-1.5x of the mean, peak at 14:00 UTC)."""
    import math
    path = work / "online-profile.csv"
    rows = [f"{h * 3600},{1 + 0.5 * math.cos(2 * math.pi * (h - 14) / 24):.6f}" for h in range(24)]
    path.write_text("offset_s,load\n" + "\n".join(rows) + "\n")
    return path


def summary_rows(text):
    """The `summary` rows of `--format csv` output (one tidy table, the part in its first column) as dicts."""
    return [row for row in csv.DictReader(text.splitlines()) if row.get("part") == "summary"]


def bench_policies(tracelab, work, scale, trace, policies, extra=()):
    st = store(tracelab, work, trace, scale)
    rows = []
    for policy in policies:
        cmd = [tracelab, "simulate", "--store", st, "--trace", trace, "--policy", policy, "--cluster", "from-trace",
               "--format", "csv", "--threads", "1", *extra]
        secs, rss, out = run(cmd)
        s = summary_rows(out)[0]
        rows.append((trace, policy, int(s["jobs"]), secs, rss, float(s["mean_jct_s"]), float(s["gpu_util"])))
        print(f"  {trace} {policy}: {secs:.2f} s, {rss:.0f} MB", flush=True)
    return rows


def export_sample(tracelab, work, scale, n, tmp):
    """A seeded sample of n PAI tasks as job dicts (bench/crosscheck_sim.py's format), whole seconds."""
    import duckdb
    st = store(tracelab, work, "pai", scale)
    out = Path(tmp) / "sample"
    run([tracelab, "simulate", "--store", st, "--trace", "pai", "--sample", n, "--seed", 1, "--cluster", "1x6742",
         "--unplaceable", "skip", "--out", out, "--format", "csv"])
    rows = duckdb.sql(f"select job_id, \"user\", submit_s, duration_s, gpus from read_parquet('{out}/jobs.parquet') "
                      "order by submit_s, job_id").fetchall()
    return [{"job_id": i, "user": u, "vc": "pai", "submit": int(round(t)), "duration": max(1, int(round(d))), "gpus": g}
            for i, (_, u, t, d, g) in enumerate(rows)]


def pai_side_by_side(tracelab, work, scale, sim_dir, n):
    import crosscheck_sim as cc  # the PAI simulator driver of the engine's cross-check
    with tempfile.TemporaryDirectory() as tmp:
        jobs = export_sample(tracelab, work, scale, n, tmp)
        path = Path(tmp) / "ours.csv"
        cc.write_ours(jobs, path)
        print(f"\nPAI simulator vs tracelab on the same {len(jobs):,} PAI tasks (1 node x 6,742 GPUs, greedy):")
        print(f"{'policy':<8}{'PAI sim s':>11}{'tracelab s':>12}{'ratio':>9}{'PAI JCT s':>12}{'our JCT s':>12}")
        for policy, alloc in [("fifo", 8), ("sjf", 0)]:
            start = time.perf_counter()
            jct, _wait, _done = cc.run_pai(sim_dir, jobs, tmp, alloc, 0, 1, 6742)
            theirs = time.perf_counter() - start
            secs, _, out = run([tracelab, "simulate", "--jobs", path, "--cluster", "1x6742", "--policy", policy,
                                "--placement", "first-fit", "--format", "csv", "--threads", "1"])
            ours = float(summary_rows(out)[0]["mean_jct_s"])
            print(f"{policy:<8}{theirs:>11.2f}{secs:>12.2f}{theirs / secs:>8.0f}x{jct:>12.1f}{ours:>12.1f}")
        print("(fractional GPUs: the PAI simulator pools a node's GPUs, we share single GPUs, so JCTs may differ)")


# ---------------------------------------------------------------- scaling cases (issue 31)

SIZES = [1] * 10 + [2] * 4 + [4] * 2 + [8] * 2 + [16, 32]  # mean 4.5 GPUs


def busy_jobs(n, nodes=1000, gpus=8, seed=1):
    """n jobs arriving as a Poisson process at 95 % of the GPUs (bench/crosscheck_sim.py's job dicts, whole s)."""
    rng = random.Random(seed)
    mean_dur = (86400 - 10) / math.log(8640)  # log-uniform from 10 s to a day
    rate = 0.95 * nodes * gpus / (sum(SIZES) / len(SIZES) * mean_dur)
    t, jobs = 0.0, []
    for i in range(n):
        t += rng.expovariate(rate)
        jobs.append({"job_id": i, "submit": round(t), "duration": round(10 * 8640 ** rng.random()),
                     "gpus": rng.choice(SIZES), "user": f"u{rng.randrange(50)}", "vc": "vc0"})
    return jobs


def write_jobs(jobs, path):
    import crosscheck_sim as cc
    cc.write_ours(jobs, path)
    return path


def ours_case(tracelab, jobs_csv, cluster, policy):
    """(wall s, CPU s, peak RSS MB, mean JCT s) of one `tracelab simulate --jobs` run."""
    m = measure.run([tracelab, "simulate", "--jobs", jobs_csv, "--cluster", cluster, "--policy", policy,
                     "--format", "csv", "--threads", "1"], capture=True)
    return m.secs, m.cpu, m.rss_mb, float(summary_rows(m.stdout)[0]["mean_jct_s"])


def helios_case(helios_dir, jobs, tmp, policy, nodes):
    """(wall s, mean JCT s) of HeliosArtifact's QSSF framework on one VC of `nodes` 8-GPU nodes."""
    import crosscheck_sim as cc
    start = time.perf_counter()
    jct, _wait, _done = cc.run_helios(helios_dir, jobs, tmp, policy, {"vc0": nodes})
    return time.perf_counter() - start, jct


def growth(t_small, t_big, n_small):
    """(measured ratio, n log n ratio) over a 10x step from n_small."""
    return t_big / t_small, 10 * math.log(10 * n_small) / math.log(n_small)


def bench_scaling(tracelab, helios_dir, peer_max):
    cases = [("one job, fifo, pack", "nodes", [1_250, 12_500], None),
             ("srtf, greedy, pack", "jobs", [10_000, 100_000], "srtf"),
             ("las, greedy, pack", "jobs", [10_000, 100_000], "las")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, unit, sizes, policy in cases:
            measured = []
            for n in sizes:
                if policy is None:
                    nodes, jobs = n, [{"job_id": 0, "submit": 0, "duration": 3600, "gpus": 8 * n, "user": "u0",
                                       "vc": "vc0"}]
                else:
                    nodes, jobs = 1000, busy_jobs(n)
                path = write_jobs(jobs, Path(tmp) / f"{policy or 'one'}-{n}.csv")
                secs, cpu, rss, jct = ours_case(tracelab, path, f"{nodes}x8", policy or "fifo")
                peer = None
                if helios_dir and len(jobs) <= peer_max:
                    peer = helios_case(helios_dir, jobs, tmp, policy or "fifo", nodes) if policy != "las" else None
                print(f"  {name}, {n:,} {unit}: {secs:.2f} s" + (f"; HeliosArtifact {peer[0]:.1f} s" if peer else ""),
                      flush=True)
                measured.append((n, secs, cpu, rss, jct, peer))
            rows.append((name, unit, measured))
    print("\nScaling cases: tracelab simulate --jobs (read the list + replay + output), one process each")
    print("(growth: CPU time of the larger size over the smaller's, steadier than wall time on a shared machine)")
    print(f"{'case':<22}{'size':>16}{'wall s':>9}{'CPU s':>8}{'peak MB':>9}{'mean JCT s':>12}{'growth':>8}"
          f"{'n log n':>9}{'Helios s':>10}{'Helios JCT s':>14}")
    for name, unit, measured in rows:
        for i, (n, secs, cpu, rss, jct, peer) in enumerate(measured):
            g = growth(measured[0][2], cpu, measured[0][0]) if i else None
            grown = f"{g[0]:>7.1f}x{g[1]:>8.1f}x" if g else f"{'':>8}{'':>9}"
            theirs = f"{peer[0]:>10.1f}{peer[1]:>14.1f}" if peer else f"{'-':>10}{'-':>14}"
            print(f"{name:<22}{f'{n:,} {unit}':>16}{secs:>9.2f}{cpu:>8.2f}{rss:>9.0f}{jct:>12.1f}{grown}{theirs}")
    print("target: each under 10 s on 2 cores; growth at most the n log n column")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--tracelab", type=Path, default=ROOT / "target/release/tracelab")
    ap.add_argument("--work", type=Path, default=ROOT / "target/bench")
    ap.add_argument("--policies", help="comma-separated (default: non-preemptive on both, srtf and las on Philly)")
    ap.add_argument("--pai-sim", type=Path, help="the PAI simulator's folder (cluster-trace-gpu-v2020/simulator)")
    ap.add_argument("--sample", type=int, default=20_000)
    ap.add_argument("--online", type=int, default=674, help="online services beside the sharing policies' runs")
    ap.add_argument("--sharing-only", action="store_true",
                    help="only PAI: fifo (the second figure) and the sharing policies")
    ap.add_argument("--cases", choices=["all", "traces", "scaling"], default="all")
    ap.add_argument("--helios-qssf", type=Path, help="HeliosArtifact's `framework/QSSF Service` folder")
    ap.add_argument("--peer-max-jobs", type=int, default=10_000)
    args = ap.parse_args()
    if not args.tracelab.exists():
        sys.exit(f"{args.tracelab} not found: run `cargo build --release` first")
    args.work.mkdir(parents=True, exist_ok=True)
    if args.cases in ("all", "scaling"):
        bench_scaling(args.tracelab, args.helios_qssf, args.peer_max_jobs)
    if args.cases == "scaling":
        return
    chosen = args.policies.split(",") if args.policies else None
    if args.sharing_only:
        rows = bench_policies(args.tracelab, args.work, args.scale, "pai", ["fifo"])
    else:
        rows = bench_policies(args.tracelab, args.work, args.scale, "pai", chosen or NON_PREEMPTIVE)
        rows += bench_policies(args.tracelab, args.work, args.scale, "philly", chosen or NON_PREEMPTIVE + PREEMPTIVE)
    if not chosen:
        online = ["--online", args.online, "--online-profile", profile_file(args.work)]
        sharing = bench_policies(args.tracelab, args.work, args.scale, "pai", SHARING, online)
        rows += [(t, f"{p} +{args.online} online", *rest) for t, p, *rest in sharing]
    print(f"\ntracelab simulate, scale {args.scale:g}, {os.cpu_count()} cores, one process per run "
          "(read store + build workload + replay + output)")
    print(f"{'trace':<8}{'policy':<34}{'jobs':>10}{'wall s':>9}{'jobs/s':>12}{'peak RSS MB':>13}{'mean JCT s':>13}"
          f"{'GPU util':>10}")
    for trace, policy, jobs, secs, rss, jct, util in rows:
        print(f"{trace:<8}{policy:<34}{jobs:>10,}{secs:>9.2f}{jobs / secs:>12,.0f}{rss:>13.0f}{jct:>13.1f}{util:>10.3f}")
    print("target: full-scale PAI, each non-preemptive policy < 10 s and < 1024 MB on 2 cores; "
          "horus and muxflow < 20 s and < 1536 MB (second figure: fifo above, same store, same run)")
    if args.pai_sim:
        pai_side_by_side(args.tracelab, args.work, args.scale, args.pai_sim, args.sample)


if __name__ == "__main__":
    main()
