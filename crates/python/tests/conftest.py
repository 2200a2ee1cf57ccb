"""Shared fixtures: the CLI binary the Python results are compared with, and
the bundled samples' store both open (the commands' default store)."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def cli():
    """Runs `tracelab ARGS...` (TRACELAB_BIN, else target/debug/tracelab)
    from the checkout and returns the completed process."""
    binary = os.environ.get("TRACELAB_BIN", str(ROOT / "target" / "debug" / "tracelab"))
    if not os.path.exists(binary):
        pytest.fail(f"{binary} not found: build it (cargo build, or scripts/test.sh) or set TRACELAB_BIN")

    def run(*args, check=True):
        done = subprocess.run([binary, *map(str, args)], cwd=ROOT, capture_output=True, text=True)
        if check and done.returncode != 0:
            raise AssertionError(f"tracelab {' '.join(map(str, args))} failed: {done.stderr}")
        return done

    return run


@pytest.fixture(scope="session")
def store(cli):
    """The bundled samples' store, as `tracelab.open()` gives it. The CLI
    is run once first so both see the store already ingested."""
    import tracelab

    cli("tables")
    os.chdir(ROOT)
    return tracelab.open()
