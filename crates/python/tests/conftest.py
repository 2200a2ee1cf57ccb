"""Shared fixtures: the CLI binary the Python results are compared with, and
the bundled samples' store both open (the commands' default store).

Both run in a temporary copy of the checkout's `data-samples/`, so the store
they ingest by default lands there and never in the checkout."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def workdir(tmp_path_factory):
    """A folder holding a copy of `data-samples/` (raw files only): the
    working directory where `tracelab.open()` and the CLI find their
    default store."""
    here = tmp_path_factory.mktemp("work")
    shutil.copytree(ROOT / "data-samples", here / "data-samples", ignore=shutil.ignore_patterns(".tracelab"))
    return here


@pytest.fixture(scope="session")
def cli(workdir):
    """Runs `tracelab ARGS...` (TRACELAB_BIN, else target/debug/tracelab)
    in `workdir` and returns the completed process."""
    binary = os.environ.get("TRACELAB_BIN", str(ROOT / "target" / "debug" / "tracelab"))
    if not os.path.exists(binary):
        pytest.fail(f"{binary} not found: build it (cargo build, or scripts/test.sh) or set TRACELAB_BIN")

    def run(*args, check=True):
        done = subprocess.run([binary, *map(str, args)], cwd=workdir, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"tracelab {' '.join(map(str, args))} failed: {done.stderr}")
        return done

    return run


@pytest.fixture(scope="session")
def store(cli, workdir):
    """The bundled samples' store, as `tracelab.open()` gives it. The CLI
    is run once first so both see the store already ingested."""
    import tracelab

    cli("tables")
    os.chdir(workdir)
    return tracelab.open()
