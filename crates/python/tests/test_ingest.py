"""`tracelab.ingest(..., strict=, max_record_bytes=)` is `tracelab ingest
--strict --max-record-bytes`, on tiny folders written here whose bad
records are known by construction; and the progress of the long calls
(ingest, report in test_report.py, simulate) reaches the hook as counts
that only grow and end at the total."""

from __future__ import annotations

import json
import pathlib
import sys
import time
import types
import warnings

import pytest

import tracelab

ROOT = pathlib.Path(__file__).resolve().parents[3]
HEADER = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
# Three Helios jobs (the README's example rows); the second's gpu_num is
# not a number, so it is rejected: line 3 of the file (the header is line 1),
# column gpu_num.
ROWS = [
    "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n",
    "1425512,uVMrF,vchbv,four,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n",
    "1425513,uzqls,vcpDC,1,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0\n",
]


def helios_folder(where: pathlib.Path, rows) -> pathlib.Path:
    log = where / "helios" / "Venus" / "cluster_log.csv"
    log.parent.mkdir(parents=True)
    log.write_text(HEADER + "".join(rows))
    return where


def count(store, sql: str) -> int:
    import pyarrow as pa

    reader = pa.RecordBatchReader._import_from_c_capsule(store.query(sql).__arrow_c_stream__())
    return reader.read_all().column(0)[0].as_py()


def ingest_warned(*args, **kwargs):
    """`tracelab.ingest` and the IngestNote warnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        store = tracelab.ingest(*args, **kwargs)
    return store, [str(w.message) for w in caught if w.category is tracelab.IngestNote]


def test_strict_refuses_a_bad_row_naming_file_record_and_column(cli, tmp_path):
    raw = helios_folder(tmp_path / "raw", ROWS)
    done = cli("ingest", raw, "--out", tmp_path / "cli", "--strict", check=False)
    assert done.returncode == 1
    # The command's summary samples the reject; Python's error carries the same line.
    sample = next(line.strip() for line in done.stdout.splitlines() if "cluster_log.csv:3" in line)
    assert sample.startswith("helios/Venus/cluster_log.csv:3: column gpu_num:") and '(got "four")' in sample
    with pytest.raises(tracelab.Error) as raised:
        tracelab.ingest(raw, tmp_path / "py", strict=True)
    assert not isinstance(raised.value, tracelab.UsageError)
    text = str(raised.value)
    assert text.startswith("strict: 1 record(s) rejected")
    assert sample in text.splitlines()[-1]
    assert f"{tmp_path / 'py'}/helios/rejects.parquet" in text


def test_without_strict_the_bad_row_is_counted_in_the_rejects(tmp_path):
    raw = helios_folder(tmp_path / "raw", ROWS)
    store, notes = ingest_warned(raw, tmp_path / "py")
    # Rows in (3) = rows written (2) + rows rejected (1).
    assert count(store, "SELECT count(*) FROM helios_jobs") == 2
    assert count(store, "SELECT count(*) FROM helios_rejects") == 1
    assert count(store, "SELECT line FROM helios_rejects WHERE \"column\" = 'gpu_num'") == 3
    rejected = [n for n in notes if "record(s) rejected" in n]
    assert len(rejected) == 1 and "helios/Venus/cluster_log.csv:3: column gpu_num" in rejected[0]
    # The store is written either way; strict over it (unchanged inputs) still refuses.
    with pytest.raises(tracelab.Error, match="strict: 1 record"):
        tracelab.ingest(raw, tmp_path / "py", strict=True)


def test_a_csv_line_over_max_record_bytes_is_rejected_as_the_cli_rejects_it(cli, tmp_path):
    long = "1425514," + "u" * 1100 + ",vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
    raw = helios_folder(tmp_path / "raw", [ROWS[0], long])
    done = cli("ingest", raw, "--out", tmp_path / "cli", "--max-record-bytes", "1024")
    cli_sample = next(line.strip() for line in done.stdout.splitlines() if "cluster_log.csv:3" in line)
    # Under the default 1 MiB limit the line is a record like any other.
    store, _ = ingest_warned(raw, tmp_path / "default")
    assert count(store, "SELECT count(*) FROM helios_jobs") == 2
    store, notes = ingest_warned(raw, tmp_path / "py", max_record_bytes=1024)
    assert count(store, "SELECT count(*) FROM helios_jobs") == 1
    assert count(store, "SELECT count(*) FROM helios_rejects") == 1
    rejected = next(n for n in notes if "record(s) rejected" in n)
    assert rejected.splitlines()[1].strip() == cli_sample
    # The line's length without its newline, worked out here.
    assert f"line of {len(long) - 1} bytes, longer than the limit of 1024 bytes" in cli_sample


def test_a_philly_job_over_max_record_bytes_stops_the_ingest_as_in_the_cli(cli, tmp_path):
    def job(number: int, nodes: int) -> dict:
        detail = [{"ip": f"m{k}", "gpus": ["gpu0"]} for k in range(nodes)]
        attempt = {"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23", "detail": detail}
        return {"status": "Pass", "vc": "ee9e8c", "jobid": f"application_{number}", "attempts": [attempt],
                "submitted_time": "2017-10-07 01:12:00", "user": "u1"}  # fmt: skip

    # The second job spans about 350 kB, past the limit (1 KiB, plus the
    # reader's 64 KiB of slack); the first is small.
    text = json.dumps([job(1, 1), job(2, 2000)], indent=4)
    log = tmp_path / "raw" / "philly" / "cluster_job_log"
    log.parent.mkdir(parents=True)
    log.write_text(text)
    second = [i for i, line in enumerate(text.splitlines(), start=1) if line == "    {"][1]
    done = cli("ingest", tmp_path / "raw", "--out", tmp_path / "cli", "--max-record-bytes", "1024", check=False)
    assert done.returncode == 1
    with pytest.raises(tracelab.Error) as raised:
        tracelab.ingest(tmp_path / "raw", tmp_path / "py", max_record_bytes=1024)
    assert str(raised.value) == done.stderr.strip().removeprefix("error: ")
    assert f"the job starting on line {second} is longer than the limit of 1024 bytes" in str(raised.value)
    # Under the default limit it is an ordinary job.
    store, _ = ingest_warned(tmp_path / "raw", tmp_path / "default")
    assert count(store, "SELECT count(*) FROM philly_jobs") == 2


def test_max_record_bytes_below_a_kilobyte_is_a_usage_error(cli, tmp_path):
    raw = helios_folder(tmp_path / "raw", ROWS[:1])
    assert cli("ingest", raw, "--max-record-bytes", "1000", check=False).returncode == 2
    with pytest.raises(tracelab.UsageError, match="at least 1024 bytes"):
        tracelab.ingest(raw, tmp_path / "py", max_record_bytes=1000)


# ------------------------------------------------------------------ progress


def test_ingest_progress_counts_every_input_byte(tmp_path):
    samples = tmp_path / "samples"
    import shutil

    shutil.copytree(ROOT / "data-samples", samples, ignore=shutil.ignore_patterns(".tracelab"))
    calls = []
    start = time.monotonic()
    ingest_warned(samples, tmp_path / "store", progress=lambda done, total: calls.append((done, total, time.monotonic())))
    # The bytes read are every input file the manifests list, as the file
    # system sizes them, except the synthetic markers (SYNTHETIC.json,
    # read whole as metadata).
    read = 0
    for manifest in (tmp_path / "store").glob("*/manifest.json"):
        for entry in json.loads(manifest.read_text())["inputs"]:
            if not entry["file"].endswith("SYNTHETIC.json"):
                read += (samples / entry["file"]).stat().st_size
    assert calls[-1][:2] == (read, read)
    assert all(a[0] <= b[0] and a[1] <= b[1] and b[0] <= b[1] for a, b in zip(calls, calls[1:])), calls
    # At most ten calls a second, besides the last one.
    gaps = [b[2] - a[2] for a, b in zip(calls[:-1], calls[1:-1])]
    assert all(g >= 0.099 for g in gaps), gaps
    assert len(calls) <= 2 + 10 * (calls[-1][2] - start)
    # Nothing changed: nothing is read, the hook is not called.
    again = []
    tracelab.ingest(samples, tmp_path / "store", progress=lambda d, t: again.append((d, t)))
    assert again == []


def test_simulate_progress_counts_the_runs(store):
    calls = []
    store.simulate(trace="philly", policy=["fifo", "sjf"], load=[1, 2], progress=lambda d, t: calls.append((d, t)))
    # Two policies at two loads: four runs.
    assert calls[0] == (0, 4) and calls[-1] == (4, 4)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)


def test_a_hook_that_raises_is_raised_after_the_work(tmp_path):
    raw = helios_folder(tmp_path / "raw", ROWS[:1])

    def hook(done, total):
        raise KeyError("from the hook")

    with pytest.raises(KeyError, match="from the hook"):
        tracelab.ingest(raw, tmp_path / "store", progress=hook)
    # The ingest itself ran to the end.
    assert count(tracelab.open(tmp_path / "store"), "SELECT count(*) FROM helios_jobs") == 1


def test_progress_draws_a_tqdm_bar_when_tqdm_is_there(tmp_path, monkeypatch):
    """tqdm.auto stood in for by a recorder: the bar is opened with the
    total, moved to the end and closed; progress=False opens none."""
    bars = []

    class Recorder:
        def __init__(self, total, desc, unit, unit_scale, unit_divisor):
            self.total, self.desc, self.unit, self.n, self.closed = total, desc, unit, 0, False
            bars.append(self)

        def update(self, n):
            self.n += n

        def close(self):
            self.closed = True

    auto = types.ModuleType("tqdm.auto")
    auto.tqdm = Recorder
    monkeypatch.setitem(sys.modules, "tqdm", types.ModuleType("tqdm"))
    monkeypatch.setitem(sys.modules, "tqdm.auto", auto)
    raw = helios_folder(tmp_path / "raw", ROWS[:1])
    tracelab.ingest(raw, tmp_path / "store")
    size = (raw / "helios" / "Venus" / "cluster_log.csv").stat().st_size
    assert len(bars) == 1
    assert (bars[0].desc, bars[0].unit, bars[0].n, bars[0].total, bars[0].closed) == ("ingest", "B", size, size, True)
    tracelab.ingest(raw, tmp_path / "store", force=True, progress=False)
    assert len(bars) == 1


def test_progress_without_tqdm(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    raw = helios_folder(tmp_path / "raw", ROWS[:1])
    tracelab.ingest(raw, tmp_path / "store")  # draws nothing, fails nothing
    with pytest.raises(tracelab.UsageError, match="install tqdm"):
        tracelab.ingest(raw, tmp_path / "store", progress=True)
    with pytest.raises(tracelab.UsageError, match="progress="):
        tracelab.ingest(raw, tmp_path / "store", progress="yes")
