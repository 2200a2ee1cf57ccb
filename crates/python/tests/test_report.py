"""`Store.report` is `tracelab report --store STORE --out OUT`: the same
folder byte for byte (every file, the folder's marker included), the same
notes, the same refusal of a folder tracelab did not write, and the same
`--check`. Two specs (Philly's and the cross-trace one) over the Philly
sample with PNGs keep it to seconds in the dev build; the full report is
the same code path with more specs."""

from __future__ import annotations

import pathlib
import shutil
import warnings

import pytest

import tracelab

ROOT = pathlib.Path(__file__).resolve().parents[3]
SPECS = [ROOT / "notebooks-equivalents" / "philly-atc19.toml", ROOT / "notebooks-equivalents" / "cross-trace.toml"]


def tree(folder: pathlib.Path) -> dict:
    """Every file under `folder` (hidden ones too) by relative path, with its bytes."""
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def both(cli, store, tmp_path_factory):
    """The CLI's report and Python's over the sample store (each without the
    cache, so both are computed here), the CLI's stderr, Python's result,
    warnings and progress calls."""
    where = tmp_path_factory.mktemp("reports")
    spec_flags = [a for s in SPECS for a in ("--spec", s)]
    done = cli(
        "report", "--store", store.path, "--out", where / "cli", *spec_flags,
        "--only", "philly", "--formats", "svg,png", "--no-cache",
    )  # fmt: skip
    calls = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = store.report(
            where / "py", specs=SPECS, only="philly", formats=["svg", "png"], cache=False,
            progress=lambda done, total: calls.append((done, total)),
        )  # fmt: skip
    return where, done.stderr, got, caught, calls


def test_the_report_is_the_clis_byte_for_byte(both):
    where, _, got, _, _ = both
    cli, py = tree(where / "cli"), tree(where / "py")
    assert sorted(cli) == sorted(py)
    assert [name for name in cli if cli[name] != py[name]] == []
    assert ".tracelab-report" in py and "index.html" in py
    assert any(name.endswith(".png") for name in py), "formats=png writes PNGs"
    # The files listed are the report's files (the marker is the folder's).
    assert got.files == sorted(name for name in py if name != ".tracelab-report")
    assert got.index == str(where / "py" / "index.html")


def test_the_result_says_what_the_cli_says(both):
    _, stderr, got, caught, calls = both
    # The notes: every `note:` line of the command, in its order.
    cli_notes = [line.removeprefix("note: ") for line in stderr.splitlines() if line.startswith("note: ")]
    assert [str(w.message) for w in caught if w.category is tracelab.ReportNote] == cli_notes
    assert got.notes == cli_notes and cli_notes, "the cross-trace spec lacks traces, so there are notes"
    # The closing line: `report: F figures and T tables from R analysis runs ...`.
    last = stderr.strip().splitlines()[-1]
    words = last.split()
    assert (got.figure_count, got.table_count, got.runs) == (int(words[1]), int(words[4]), int(words[7])), last
    # Figures: summary.json's, with their spec.
    ids = {(f["spec"], f["id"]) for f in got.figures}
    assert ("philly-atc19", "fig2-runtime-by-size") in ids and all(f["spec"] for f in got.figures)


def test_progress_counts_the_analysis_runs(both):
    _, stderr, got, _, calls = both
    # The command prints `[ i/N] analysis (...)` once per run.
    ran = [line for line in stderr.splitlines() if line.startswith("[")]
    total = int(ran[0].split("/")[1].split("]")[0])
    assert len(ran) == total == got.runs
    assert calls[-1] == (total, total)
    assert all(t == total for _, t in calls)
    assert all(a[0] <= b[0] for a, b in zip(calls, calls[1:])), calls


@pytest.mark.filterwarnings("ignore::tracelab.ReportNote")
def test_check_compares_with_the_folder(both, store, tmp_path):
    where, _, _, _, _ = both
    same = store.report(where / "cli", specs=SPECS, only="philly", formats="svg,png", check=True)
    assert same.matches is True and same.differences == []
    changed = tmp_path / "changed"
    shutil.copytree(where / "cli", changed)
    (changed / "summary.md").write_text("edited\n")
    (changed / "index.html").unlink()
    before = tree(changed)
    diff = store.report(changed, specs=SPECS, only="philly", formats="svg,png", check=True)
    assert diff.matches is False
    assert len(diff.differences) == 2
    assert any("summary.md" in d for d in diff.differences) and any("index.html" in d for d in diff.differences)
    assert tree(changed) == before, "check writes nothing"


def test_a_folder_tracelab_did_not_write_is_refused(cli, store, tmp_path):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("my own file\n")
    done = cli("report", "--store", store.path, "--out", foreign, "--spec", SPECS[0], check=False)
    assert done.returncode == 2
    with pytest.raises(tracelab.UsageError) as raised:
        store.report(foreign, specs=SPECS[:1])
    assert str(raised.value) == done.stderr.strip().removeprefix("error: ")
    assert tree(foreign) == {"notes.txt": b"my own file\n"}


def test_bad_options_are_usage_errors(store, tmp_path):
    for kwargs, words in [
        ({"only": "nosuch"}, "only: no trace `nosuch`"),
        ({"formats": "gif"}, "formats: no format `gif`"),
        ({"jobs": 0}, "jobs=0"),
        ({"memory_budget": -1.0}, "memory_budget=-1"),
    ]:
        with pytest.raises(tracelab.UsageError, match=words):
            store.report(tmp_path / "out", **kwargs)
        assert not (tmp_path / "out").exists()
