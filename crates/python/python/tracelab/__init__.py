"""tracelab from Python: the store, its tables, SQL and the analyses.

Every function here calls the library function the matching ``tracelab``
command calls, so an answer here is the command's answer::

    import tracelab
    tl = tracelab.open()                 # the bundled samples' store
    tl.tables()                          # as `tracelab tables`
    t = tl.query("top-users-by-gpu-hours", trace="helios")
    import polars as pl; pl.DataFrame(t) # or pyarrow.table(t), duckdb.sql("from t")
    a = tl.analyze("philly.queueing-by-vc")  # as `tracelab analyze --format json`

Tables are :class:`Table` objects speaking the Arrow PyCapsule interface
(``__arrow_c_stream__``): pyarrow, polars and DuckDB read them without a
copy of their numeric columns, and tracelab itself needs none of them.
Errors are :class:`Error` (:class:`UsageError` for a wrong name, parameter
or option) with the command's message.
"""

from __future__ import annotations

import json
import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from ._tracelab import Error, Job, State, Table, UsageError
from ._tracelab import Store as _Store
from ._tracelab import ingest as _ingest
from ._tracelab import open_store as _open_store
from ._tracelab import synth as _synth
from .policy import Evict, Policy, Start, _split_policies

__all__ = [
    "Analysis",
    "Error",
    "Evict",
    "Job",
    "Policy",
    "QueryNote",
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


class QueryNote(UserWarning):
    """A note about how a query was computed (an integer division, a spill
    to disk): what ``tracelab query`` prints on stderr."""


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
        replay and is raised here as itself."""
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
        document, table, jobs = self._native.simulate(given, threads, custom, per_job)
        result = Analysis(json.loads(document), table)
        result.per_job = jobs
        return result

    def __repr__(self) -> str:
        return f"<tracelab.Store {self.path}>"


def open(store: Optional[PathLike] = None) -> Store:  # noqa: A001 - mirrors the verb
    """Opens a store written by ``tracelab ingest``; without one, the
    bundled ``data-samples/`` store, ingested on first use (as the
    commands' default ``--store``)."""
    return Store(_open_store(None if store is None else os.fspath(store)))


def ingest(dir: PathLike, store: Optional[PathLike] = None, *, force: bool = False) -> Store:
    """Ingests the traces in ``dir`` into ``store`` (``<dir>/.tracelab``
    when not given), as ``tracelab ingest``, and opens it."""
    return Store(_ingest(os.fspath(dir), None if store is None else os.fspath(store), force))


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
