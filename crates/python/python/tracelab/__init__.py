"""tracelab from Python: the store, its tables, SQL and the analyses.

Every function here calls the library function the matching ``tracelab``
command calls, so an answer here is the command's answer::

    import tracelab
    tl = tracelab.open()                 # the bundled samples' store
    tl.tables()                          # as `tracelab tables`
    t = tl.query("top-users-by-gpu-hours", trace="helios")
    import polars as pl; pl.DataFrame(t) # or pyarrow.table(t), duckdb.sql("from t")
    a = tl.analyze("philly.queueing-by-vc")  # as `tracelab analyze --format json`
    r = tl.report("/tmp/report")         # as `tracelab report --store ... --out /tmp/report`

Tables are :class:`Table` objects speaking the Arrow PyCapsule interface
(``__arrow_c_stream__``): pyarrow, polars and DuckDB read them without a
copy of their numeric columns, and tracelab itself needs none of them.
Errors are :class:`Error` (:class:`UsageError` for a wrong name, parameter
or option) with the command's message. What a command prints on stderr as
notes comes as warnings (:class:`QueryNote`, :class:`IngestNote`,
:class:`ReportNote`). The long calls (``ingest``, ``report``,
``simulate``) show a tqdm bar when tqdm is installed (``progress=``).
"""

from __future__ import annotations

import datetime
import json
import os
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._tracelab import Error, Job, State, Table, UsageError
from ._tracelab import Store as _Store
from ._tracelab import ingest as _ingest
from ._tracelab import open_store as _open_store
from ._tracelab import synth as _synth
from . import _progress
from .policy import Evict, Policy, Start, _split_policies

__all__ = [
    "Analysis",
    "Error",
    "Evict",
    "IngestNote",
    "Job",
    "Policy",
    "QueryNote",
    "Report",
    "ReportNote",
    "Start",
    "State",
    "Store",
    "Table",
    "UsageError",
    "ingest",
    "open",
    "synth",
]

PathLike = Union[str, "os.PathLike[str]"]
#: ``progress=``: None (a tqdm bar when tqdm is installed), True (a tqdm
#: bar), False (none) or a hook called as ``hook(done, total)``.
Progress = Union[None, bool, Callable[[int, int], Any]]


class QueryNote(UserWarning):
    """A note about how a query was computed (an integer division, a spill
    to disk): what ``tracelab query`` prints on stderr."""


class IngestNote(UserWarning):
    """What ``tracelab ingest`` says in its summary beyond the counts:
    records rejected (the trace, how many, where they are listed, and the
    first few with file, line and column), notes of the ingest, files no
    trace claims, a wait for the store's lock."""


class ReportNote(UserWarning):
    """What ``tracelab report`` prints on stderr as a note: a spec or
    figure skipped for a missing trace, series left out, a wait for the
    report folder's lock."""


def _warn_all(notes: Sequence[str], kind: type, stacklevel: int = 3) -> None:
    for note in notes:
        warnings.warn(note, kind, stacklevel=stacklevel)


def _names(value: Union[None, str, Sequence[str]]) -> List[str]:
    """A comma-separated string or a list of names, as a list."""
    if value is None:
        return []
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    return [str(v) for v in value]


def _param_text(name: str, value: Any) -> str:
    """A parameter as the command line would spell it (``--param name=value``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (str, int, float)):
        return str(value)
    raise UsageError(f"parameter {name}: expected a str, int, float or bool, got {type(value).__name__}")


class Analysis:
    """One analysis' result: its id, title, definition, headline numbers,
    published values and parts, as ``tracelab analyze ID --format json``
    prints them (:attr:`document`), and all its parts as one tidy table
    (:attr:`table`, as ``--format csv``)."""

    def __init__(self, document: Dict[str, Any], table: Table) -> None:
        self.document = document
        self.table = table
        #: Per-job rows of a replay asked with ``per_job=True``, else None.
        self.per_job: Optional[Table] = None

    @property
    def id(self) -> str:
        return self.document["id"]

    @property
    def title(self) -> str:
        return self.document["title"]

    @property
    def definition(self) -> str:
        return self.document["definition"]

    @property
    def parts(self) -> List[Dict[str, Any]]:
        return self.document["parts"]

    def part(self, name: str) -> Dict[str, Any]:
        """The part called ``name``."""
        for p in self.parts:
            if p["name"] == name:
                return p
        names = ", ".join(p["name"] for p in self.parts)
        raise UsageError(f"{self.id} has no part `{name}`; its parts: {names}")

    def __repr__(self) -> str:
        return f"<tracelab.Analysis {self.id}: {len(self.parts)} part(s)>"


class Report:
    """A report written by :meth:`Store.report` (or compared with the
    folder on disk, with ``check=True``)."""

    def __init__(
        self,
        out: str,
        files: List[str],
        summary: Dict[str, Any],
        counts: Sequence[int],
        skipped_specs: List[str],
        notes: List[str],
        differences: Optional[List[str]],
    ) -> None:
        #: The report folder.
        self.path = out
        #: Every file of the report, relative to :attr:`path`, sorted.
        self.files = files
        #: ``summary.json``: the data, its inputs, every spec's figures with
        #: their captions, definitions and headline numbers.
        self.summary = summary
        (self.figure_count, self.table_count, self.runs, self.cached_runs, self.skipped_figures) = counts
        #: Specs skipped because the store lacks their traces.
        self.skipped_specs = skipped_specs
        #: The notes also issued as :class:`ReportNote` warnings.
        self.notes = notes
        #: With ``check=True``: how the folder differs from a fresh report
        #: (missing, changed and extra files); empty when it matches. Else None.
        self.differences = differences

    @property
    def index(self) -> str:
        """The report's page, ``index.html`` in :attr:`path`."""
        return os.path.join(self.path, "index.html")

    @property
    def figures(self) -> List[Dict[str, Any]]:
        """Every figure and table of every spec (``summary.json``'s
        entries: id, title, analysis, caption, file, csv, notes, ...),
        skipped ones included, each with its spec's id as ``spec``."""
        return [
            {"spec": spec.get("id"), **figure}
            for spec in self.summary.get("specs", [])
            for figure in spec.get("figures", [])
        ]

    @property
    def matches(self) -> Optional[bool]:
        """With ``check=True``, whether the folder is the fresh report byte
        for byte; else None."""
        return None if self.differences is None else not self.differences

    def __repr__(self) -> str:
        what = f"{self.figure_count} figures, {self.table_count} tables"
        if self.differences is not None:
            what += ", matches" if not self.differences else f", {len(self.differences)} difference(s)"
        return f"<tracelab.Report {self.path}: {what}>"


class Store:
    """An opened store (see :func:`open`)."""

    def __init__(self, native: _Store) -> None:
        self._native = native

    @property
    def path(self) -> str:
        """The store's folder."""
        return str(self._native.path)

    def tables(self) -> Table:
        """One row per table present: SQL name, trace, rows, columns, bytes
        (``tracelab tables``)."""
        return self._native.tables()

    def query(self, sql: str, *, memory_limit: Optional[int] = None, **params: Any) -> Table:
        """Runs SQL text or a named query (``tracelab query --list`` names
        them) with its parameters (``tracelab query SQL --param k=v``).
        The rows are DataFusion's record batches, handed over as they are.
        ``memory_limit`` (bytes) is ``--memory-limit``: sorts, groupings and
        joins spill to disk past it. The notes the command prints on stderr
        (an integer division, a spill) are issued as :class:`QueryNote`
        warnings."""
        table, notes = self._native.query(sql, {k: _param_text(k, v) for k, v in params.items()}, memory_limit)
        for note in notes:
            warnings.warn(note, QueryNote, stacklevel=2)
        return table

    def analyze(self, id: str, **params: Any) -> Analysis:
        """Runs an analysis (``tracelab analyze ID --param k=v``)."""
        given = [(k, _param_text(k, v)) for k, v in params.items()]
        document, table = self._native.analyze(id, given)
        return Analysis(json.loads(document), table)

    def simulate(
        self,
        *,
        policy: Union[str, "Policy", Sequence[Union[str, "Policy"]]] = "fifo",
        threads: Optional[int] = None,
        per_job: bool = False,
        progress: Progress = None,
        **options: Any,
    ) -> Analysis:
        """Replays a trace (or a job list, ``jobs="file.csv"``) under
        scheduling policies, as ``tracelab simulate``: keywords are the
        command's options with ``_`` for ``-`` (``trace``, ``jobs``,
        ``placement``, ``discipline``, ``window``, ``sample``, ``seed``,
        ``load``, ``cluster``, ``until``, ``recipe``, ``interval``, ...;
        ``tracelab simulate --list`` names the choices), with the command's
        defaults and its errors.

        ``policy`` is a name (``"fifo"``, ``"fifo,sjf"``), a
        :class:`Policy` object, or a list of both: every policy is replayed
        on the same jobs and the summary has one row per policy (and
        placement and load), in the order given.

        The result is what ``--format json`` prints (summary per run, jobs
        left out, cluster) and its tidy table; with ``per_job=True`` also
        :attr:`Analysis.per_job`, one row per job and run (``--out``'s
        ``jobs.parquet``). An exception raised by a Python policy stops the
        replay and is raised here as itself.

        ``progress``: runs done of the runs planned (policies x placements
        x loads), see :func:`ingest`; an elastic replay reports none."""
        names, custom = _split_policies(policy)
        given: Dict[str, Any] = {"policy": names}
        for k, v in options.items():
            if isinstance(v, (list, tuple)):
                v = ",".join(map(str, v))
            elif k in ("load",) and v is not None and not isinstance(v, str):
                v = str(v)
            elif k == "jobs" and v is not None:
                v = os.fspath(v)
            given[k] = v
        with _progress.hook(progress, "simulate", "run") as hook:
            document, table, jobs = self._native.simulate(given, threads, custom, per_job, hook)
        result = Analysis(json.loads(document), table)
        result.per_job = jobs
        return result

    def report(
        self,
        out: PathLike,
        *,
        only: Union[None, str, Sequence[str]] = None,
        formats: Union[None, str, Sequence[str]] = None,
        check: bool = False,
        specs: Optional[Sequence[PathLike]] = None,
        max_figures: Optional[int] = None,
        cache: bool = True,
        stamp: bool = False,
        jobs: Optional[int] = None,
        memory_budget: Optional[float] = None,
        progress: Progress = None,
    ) -> Report:
        """Writes the report of this store into the folder ``out``, as
        ``tracelab report --store STORE --out OUT`` (the same bytes):
        ``index.html``, ``summary.md``, ``summary.json``, per figure an SVG
        and the CSV of its points. ``out`` is replaced whole once the new
        report is complete; a folder tracelab did not write is refused
        (:class:`UsageError`) before any work.

        ``only``: report on these traces only (``--only``, a list or
        ``"pai,philly"``); ``formats``: also ``"png"`` and ``"pdf"``
        (``--formats``); ``specs``: spec files instead of the built-in
        ones (``--spec``), each of at most ``max_figures`` figures;
        ``cache=False`` is ``--no-cache``; ``stamp=True`` prints the
        generation time (``--stamp``); ``jobs`` and ``memory_budget`` (GiB)
        bound the analyses run side by side (``--jobs``,
        ``--memory-budget``). With ``check=True`` nothing is written: the
        fresh report (without the cache) is compared with ``out`` byte for
        byte and :attr:`Report.differences` lists how it differs
        (``--check``).

        Notes the command prints on stderr (specs and figures skipped for
        a missing trace) are issued as :class:`ReportNote` warnings.
        ``progress``: analysis runs done of the runs the report needs (see
        :func:`ingest`)."""
        when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC") if stamp else None
        spec_paths = [os.fspath(p) for p in specs or []]
        with _progress.hook(progress, "report", "analysis") as hook:
            files, summary, counts, skipped, notes, diffs = self._native.report(
                os.fspath(out),
                _names(only),
                _names(formats),
                check,
                spec_paths,
                max_figures,
                cache,
                when,
                jobs,
                memory_budget,
                hook,
            )
        _warn_all(notes, ReportNote)
        return Report(os.fspath(out), files, json.loads(summary), counts, skipped, notes, diffs)

    def __repr__(self) -> str:
        return f"<tracelab.Store {self.path}>"


def open(store: Optional[PathLike] = None, *, progress: Progress = None) -> Store:  # noqa: A001 - mirrors the verb
    """Opens a store written by ``tracelab ingest``; without one, the
    bundled ``data-samples/`` store, ingested on first use (as the
    commands' default ``--store``; ``progress`` as for :func:`ingest`)."""
    with _progress.hook(progress, "ingest", "B") as hook:
        native, notes = _open_store(None if store is None else os.fspath(store), hook)
    _warn_all(notes, IngestNote)
    return Store(native)


def ingest(
    dir: PathLike,
    store: Optional[PathLike] = None,
    *,
    force: bool = False,
    strict: bool = False,
    max_record_bytes: Optional[int] = None,
    progress: Progress = None,
) -> Store:
    """Ingests the traces in ``dir`` into ``store`` (``<dir>/.tracelab``
    when not given), as ``tracelab ingest DIR --out STORE``, and opens it.
    Unchanged inputs are not read again; ``force=True`` reads them anyway
    (``--force``).

    A record that does not fit its table is rejected: listed in the
    store's ``rejects`` table (``<trace>_rejects`` in SQL) and reported as
    an :class:`IngestNote` warning naming the first few by file, line and
    column. With ``strict=True`` (``--strict``) any rejected record is an
    :class:`Error` listing them instead (the store is still written, as
    the command leaves it). ``max_record_bytes`` (``--max-record-bytes``,
    at least 1024; default 1 MiB) is the longest CSV line or Philly job
    accepted: a longer CSV line is rejected without being held in memory,
    a longer Philly job stops the ingest with an :class:`Error`.

    ``progress``: ``None`` draws a tqdm bar (bytes read) when tqdm is
    installed, ``False`` draws nothing, a callable ``hook(done, total)``
    is called at most ten times a second with counts that only grow and
    once more at the end (an exception it raises is raised when the work
    is done)."""
    with _progress.hook(progress, "ingest", "B") as hook:
        native, notes = _ingest(
            os.fspath(dir), None if store is None else os.fspath(store), force, strict, max_record_bytes, hook
        )
    _warn_all(notes, IngestNote)
    return Store(native)


def synth(
    trace: str,
    out: PathLike,
    *,
    scale: float = 0.01,
    seed: int = 1,
    archive: bool = False,
    corrupt: Optional[float] = None,
    cpu_contention: bool = True,
    colocation: bool = True,
) -> List[Dict[str, Any]]:
    """Writes synthetic traces in the owners' raw formats into ``out``, as
    ``tracelab synth TRACE --out OUT`` (``trace``: pai, philly, helios or
    all; the same seed gives the same files), and lists the files written:
    trace, file, bytes, rows, folder."""
    rows = _synth(trace, os.fspath(out), scale, seed, archive, corrupt, cpu_contention, colocation)
    return [dict(zip(("trace", "file", "bytes", "rows", "folder"), r)) for r in rows]
