"""The examples under examples/ run as a user runs them (a fresh Python,
the bundled samples, output into a temporary folder) and write what they
say they write."""

from __future__ import annotations

import csv
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_the_philly_figure_and_policy_example(store, workdir, tmp_path):
    script = ROOT / "examples" / "philly_runtimes_and_a_python_policy.py"
    done = subprocess.run(
        [sys.executable, str(script), "--out", str(tmp_path)], cwd=workdir, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    with (tmp_path / "philly-runtime-by-size.csv").open() as f:
        rows = list(csv.DictReader(f))
    buckets = {}
    for r in rows:
        buckets.setdefault(r["gpus"], []).append((float(r["runtime_min"]), float(r["cdf_pct"])))
    assert set(buckets) == {"1 GPU", "2-4 GPU", "5-8 GPU", ">8 GPU"}
    for points in buckets.values():
        # A CDF: runtimes and percentages non-decreasing, from 0 % to 100 %.
        assert points == sorted(points)
        assert points[0][1] == 0.0 and points[-1][1] == 100.0
    with (tmp_path / "pai-policies.csv").open() as f:
        policies = list(csv.DictReader(f))
    assert [p["policy"] for p in policies] == ["fifo", "sjf", "least-gpu-time"]
    assert len({p["jobs"] for p in policies}) == 1, "every policy replays the same jobs"
    assert "least-gpu-time" in done.stdout
