#!/usr/bin/env bash
# The test command (README "Set-up", and what .ci/run calls). On a fresh
# machine it first sets up what the tests need, then runs every test in the
# dev profile (README "Build profiles"); arguments go to `cargo test`.
# Before the build, scripts/check_module_cycles.py checks that no two
# modules of a crate import each other (docs/architecture.md), and clippy
# checks the lints (Cargo.toml's [workspace.lints]).
#
# - Python: a virtual environment in target/venv with tests/requirements.txt
#   (DuckDB, the cross-checks' second engine, and the old Parquet reader).
#   It is (re)built only when the requirements or the base Python change (a
#   stamp in the venv records both), and nothing is installed into the
#   system Python, so an externally managed Python (PEP 668) is fine. The
#   tests run it through TRACELAB_PYTHON (tests/it/common.rs); without that
#   variable they use `python3`.
# - The Python package (crates/python), after the Rust tests: maturin (from
#   tests/requirements.txt) builds its wheel in the dev profile into this
#   checkout's target/ (the libraries it links are the ones the tests just
#   built), pip installs it into target/venv, and pytest runs
#   crates/python/tests against the CLI binary the Rust tests built.
# - Chromium, for the report's browser test (tests/browser/check_report.py):
#   the Debian package `chromium`, installed with apt-get when missing (via
#   sudo when not root).
# - Java 17 or later, for Spark SQL in local mode (the named queries' Spark
#   check, tests/crosscheck/check_spark.py; PySpark itself is in
#   tests/requirements.txt): the Debian package `openjdk-17-jre-headless`,
#   installed the same way when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "scripts/test.sh: $*" >&2; }
die() {
    say "$*"
    exit 1
}

# Runs a command as root: directly when root, else through sudo.
as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        return 1
    fi
}

# Installs Debian packages; fails (without exiting) when that is not possible.
apt_install() {
    command -v apt-get >/dev/null 2>&1 || return 1
    as_root apt-get update -qq || return 1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

command -v cargo >/dev/null 2>&1 || die "cargo not found: install the Rust toolchain (rustup) and run again"

# ---- Python, in target/venv
PY=python3
command -v "$PY" >/dev/null 2>&1 ||
    die "Python 3 not found: the tests need python3 (3.11 or later, with its venv module; Debian: apt-get install python3 python3-venv)"
VENV=target/venv
STAMP="$VENV/.tracelab-requirements"
want="$(sha256sum tests/requirements.txt | cut -d' ' -f1) $("$PY" -c 'import sys; print(sys.executable, sys.version.split()[0])')"
if [ "$(cat "$STAMP" 2>/dev/null || true)" != "$want" ] || ! "$VENV/bin/python" -c '' 2>/dev/null; then
    say "setting up $VENV with tests/requirements.txt"
    rm -rf "$VENV"
    if ! "$PY" -m venv "$VENV" >/dev/null 2>&1; then
        # Debian's python3 lacks ensurepip until python3-venv is installed.
        rm -rf "$VENV"
        say "$PY cannot create a virtual environment; installing python3-venv"
        apt_install python3-venv && "$PY" -m venv "$VENV" ||
            die "cannot create a virtual environment with $PY: install its venv module (Debian: python3-venv) and run again"
    fi
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -r tests/requirements.txt ||
        die "installing tests/requirements.txt into $VENV failed (pip's message is above)"
    echo "$want" >"$STAMP"
else
    say "reusing $VENV (tests/requirements.txt unchanged)"
fi
export TRACELAB_PYTHON="$PWD/$VENV/bin/python"

# ---- Chromium, for the browser test
has_browser() {
    command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
        command -v google-chrome >/dev/null 2>&1
}
if ! has_browser; then
    say "Chromium not found; installing the Debian package chromium"
    apt_install chromium && has_browser ||
        die "Chromium is needed by the report's browser test: install the Debian package chromium (or put chromium, chromium-browser or google-chrome on PATH) and run again"
fi

# ---- Java, for Spark
has_java() {
    command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -Eq 'version "(1[7-9]|[2-9][0-9])'
}
if ! has_java; then
    say "Java 17 or later not found; installing the Debian package openjdk-17-jre-headless"
    apt_install openjdk-17-jre-headless && has_java ||
        die "Java 17 or later is needed by the Spark check of the named queries: install it (Debian: openjdk-17-jre-headless) and run again"
fi

# ---- No import cycle between the modules of a crate (docs/architecture.md);
# fast and needs only Python, so it runs before the build.
"$PY" scripts/check_module_cycles.py ||
    die "modules import each other in a cycle (listed above): move the piece both use into its own module or the lower one"

# ---- Lints ([workspace.lints] in Cargo.toml, clippy.toml): every warning
# of every crate, tests included, is an error.
say "clippy over the workspace"
# A toolchain installed with rustup's minimal profile has no clippy.
if ! cargo clippy --version >/dev/null 2>&1; then
    command -v rustup >/dev/null 2>&1 && rustup component add clippy ||
        die "cargo clippy not found: install it (rustup component add clippy) and run again"
fi
cargo clippy --locked --workspace --all-targets -- -D warnings ||
    die "clippy found warnings (above); fix them or, where the code is right, allow the lint on that item with a comment saying why"

# Snapshot tests (insta) compare and never write: a changed output fails
# the test instead of being accepted (docs/building.md "Snapshot tests").
export INSTA_UPDATE=no CI=true
cargo test --locked --workspace "$@"

# ---- The Python package: wheel, install, pytest
say "building the Python wheel (crates/python) and running its tests"
rm -rf target/wheels
"$VENV/bin/maturin" build --quiet --locked --profile dev -m crates/python/Cargo.toml --out target/wheels ||
    die "maturin could not build the Python wheel (its message is above)"
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/tracelab-*.whl ||
    die "installing the tracelab wheel into $VENV failed (pip's message is above)"
# The binary cargo test built: under CARGO_TARGET_DIR when it is set (.ci/run
# points it at a cache folder outside the checkout), else under target/.
TARGET_DIR="$(cargo metadata --locked --format-version 1 --no-deps |
    "$PY" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')" ||
    die "cargo metadata could not name the build folder (its message is above)"
[ -x "$TARGET_DIR/debug/tracelab" ] ||
    die "$TARGET_DIR/debug/tracelab not found after cargo test: the Python tests compare the package with it"
PYTHONDONTWRITEBYTECODE=1 TRACELAB_BIN="$TARGET_DIR/debug/tracelab" "$VENV/bin/python" -m pytest -q -p no:cacheprovider crates/python/tests
