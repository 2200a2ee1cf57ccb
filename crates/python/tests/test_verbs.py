"""Every verb's Python result equals the CLI's on the bundled samples: the
CLI writes Parquet (or JSON) with `-o`, polars reads it, and the rows must
be the ones pyarrow read from the Python result's Arrow stream."""

from __future__ import annotations

import json
import math

import polars as pl
import pyarrow as pa
import pytest

import tracelab


def rows(table) -> list:
    """The rows of a tracelab.Table read by pyarrow through the C stream
    (pyarrow 14 has no public importer of a stream capsule yet)."""
    reader = pa.RecordBatchReader._import_from_c_capsule(table.__arrow_c_stream__())
    return reader.read_all().to_pylist()


def comparable(rows: list) -> list:
    """Rows with NaN spelled out, so that equal results compare equal."""
    return [{k: "NaN" if isinstance(v, float) and math.isnan(v) else v for k, v in r.items()} for r in rows]


def cli_rows(cli, tmp_path, *args) -> list:
    """The rows `tracelab ARGS -o x.parquet` wrote, read by polars (pyarrow
    14 does not know the string views Polars' Parquet declares)."""
    out = tmp_path / "cli.parquet"
    cli(*args, "-o", out)
    return pl.read_parquet(out).to_dicts()


def test_tables_are_the_clis(cli, store, tmp_path):
    got = rows(store.tables())
    assert got == cli_rows(cli, tmp_path, "tables")
    assert {r["table"] for r in got} >= {"jobs", "philly_jobs", "helios_jobs"}


@pytest.mark.parametrize(
    "text, params",
    [
        ("SELECT vc, count(*) AS jobs, sum(gpus) AS gpus FROM philly_jobs GROUP BY vc ORDER BY jobs DESC, vc", {}),
        ("SELECT trace, count(*) AS n, avg(gpus_requested) AS mean_gpus FROM jobs GROUP BY trace ORDER BY trace", {}),
        ("top-users-by-gpu-hours", {"trace": "helios"}),
        ("top-users-by-gpu-hours", {"trace": "philly", "top": 3}),
    ],
)
def test_query_is_the_clis(cli, store, tmp_path, text, params):
    got = rows(store.query(text, **params))
    flags = [a for k, v in params.items() for a in ("--param", f"{k}={v}")]
    assert got == cli_rows(cli, tmp_path, "query", text, *flags)
    assert got, "a query with no rows proves little"


@pytest.mark.parametrize(
    "id, params",
    [("philly.queueing-by-vc", {}), ("helios.job-size", {}), ("pai.allocation-by-gpu-type", {})],
)
def test_analyze_is_the_clis(cli, store, tmp_path, id, params):
    got = store.analyze(id, **params)
    flags = [a for k, v in params.items() for a in ("--param", f"{k}={v}")]
    document = json.loads(cli("analyze", id, *flags, "--format", "json").stdout)
    assert got.document == document
    assert got.id == id and got.definition == document["definition"]
    assert comparable(rows(got.table)) == comparable(cli_rows(cli, tmp_path, "analyze", id, *flags))


def test_errors_carry_the_clis_message(cli, store):
    for args, call in [
        (("query", "no-such-query"), lambda: store.query("no-such-query")),
        (("query", "SELECT * FROM nowhere"), lambda: store.query("SELECT * FROM nowhere")),
        (("analyze", "no.such-analysis"), lambda: store.analyze("no.such-analysis")),
    ]:
        done = cli(*args, check=False)
        assert done.returncode in (1, 2)
        expected = done.stderr.strip().removeprefix("error: ")
        kind = tracelab.UsageError if done.returncode == 2 else tracelab.Error
        with pytest.raises(kind) as caught:
            call()
        assert str(caught.value) == expected
        assert isinstance(caught.value, tracelab.Error)


def test_ingest_writes_the_store_the_cli_writes(cli, tmp_path):
    from conftest import ROOT

    cli("ingest", ROOT / "data-samples", "--out", tmp_path / "by-cli", "--quiet")
    mine = tracelab.ingest(ROOT / "data-samples", tmp_path / "by-python")
    assert mine.path == str(tmp_path / "by-python")
    theirs = cli_rows(cli, tmp_path, "tables", "--store", tmp_path / "by-cli")
    # The same rows, columns and Parquet bytes per table; only the folder differs.
    assert rows(mine.tables()) == theirs
    sql = "SELECT trace, job_id, submit_time, gpus_requested FROM jobs ORDER BY trace, job_id"
    assert rows(mine.query(sql)) == rows(tracelab.open(tmp_path / "by-cli").query(sql))


def test_a_missing_store_is_a_usage_error(tmp_path):
    with pytest.raises(tracelab.UsageError):
        tracelab.open(tmp_path / "nothing-here")


def test_synth_writes_the_files_the_cli_writes(cli, tmp_path):
    listed = tracelab.synth("philly", tmp_path / "py", scale=0.002, seed=7)
    cli("synth", "philly", "--scale", "0.002", "--seed", "7", "--out", tmp_path / "cli", "--format", "csv", "-q")
    theirs = sorted(p.relative_to(tmp_path / "cli") for p in (tmp_path / "cli").rglob("*") if p.is_file())
    mine = sorted(p.relative_to(tmp_path / "py") for p in (tmp_path / "py").rglob("*") if p.is_file())
    assert mine == theirs and mine
    for rel in mine:
        assert (tmp_path / "py" / rel).read_bytes() == (tmp_path / "cli" / rel).read_bytes(), rel
    # The listing names every file with its size on disk.
    assert sorted(r["file"] for r in listed) == sorted(str(p) for p in mine if p.name != "corruptions.csv")
    for r in listed:
        assert r["trace"] == "philly"
        assert r["bytes"] == (tmp_path / "py" / r["file"]).stat().st_size


def test_synth_checks_its_options_as_the_cli_does(cli, tmp_path):
    done = cli("synth", "philly", "--scale", "50", "--out", tmp_path / "cli", check=False)
    assert done.returncode == 2, done.stderr
    with pytest.raises(tracelab.UsageError) as caught:
        tracelab.synth("philly", tmp_path / "py", scale=50)
    assert str(caught.value) == done.stderr.strip().removeprefix("error: ")
    with pytest.raises(tracelab.UsageError):
        tracelab.synth("swf", tmp_path / "py")


@pytest.mark.parametrize(
    "options, flags",
    [
        ({"trace": "philly", "policy": ["fifo", "sjf"]}, ["--trace", "philly", "--policy", "fifo,sjf"]),
        (
            {"trace": "helios", "policy": "srtf", "placement": "spread", "sample": 300, "seed": 3, "load": [1, 2]},
            ["--trace", "helios", "--policy", "srtf", "--placement", "spread", "--sample", "300", "--seed", "3", "--load", "1,2"],
        ),
    ],
)
def test_simulate_is_the_clis(cli, store, tmp_path, options, flags):
    got = store.simulate(**options)
    document = json.loads(cli("simulate", *flags, "--format", "json").stdout)
    assert got.document == document
    assert len(got.part("summary")["rows"]) == 2  # two policies, or one policy at two loads
    assert comparable(rows(got.table)) == comparable(cli_rows(cli, tmp_path, "simulate", *flags))


def test_simulate_refuses_what_the_cli_refuses(cli, store):
    # A value the library checks (tracelab_workload::options): the same message in both.
    done = cli("simulate", "--trace", "philly", "--cluster", "8", check=False)
    assert done.returncode == 2
    with pytest.raises(tracelab.UsageError) as caught:
        store.simulate(trace="philly", cluster="8")
    assert str(caught.value) == done.stderr.strip().removeprefix("error: ")
    # An unknown name: refused by both, each listing the valid names (the CLI's
    # parser is clap's, over the same names the library checks).
    done = cli("simulate", "--trace", "philly", "--policy", "fifo,nonesuch", check=False)
    assert done.returncode == 2 and "[possible values: fifo, sjf, srtf" in done.stderr
    with pytest.raises(tracelab.UsageError, match="--policy nonesuch: unknown policy `nonesuch`; valid names: fifo, sjf, srtf"):
        store.simulate(trace="philly", policy="fifo,nonesuch")
    with pytest.raises(tracelab.UsageError, match="no option `polcy`"):
        store.simulate(polcy="fifo")
