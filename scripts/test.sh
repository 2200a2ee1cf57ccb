#!/usr/bin/env bash
# The test command (README "Set-up", and what .ci/run calls).
# Installs the Python side of the cross-engine checks (DuckDB) when missing,
# then runs every test in the dev profile (see README "Build profiles").
set -euo pipefail
cd "$(dirname "$0")/.."
if ! python3 -c "import duckdb" 2>/dev/null; then
    python3 -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt
fi
cargo test --locked --workspace "$@"
