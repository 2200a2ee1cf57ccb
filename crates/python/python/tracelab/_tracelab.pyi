# Type stubs of the native module tracelab._tracelab (crates/python/src).
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

# A progress hook: called with (done, total), counts that only grow, at most
# ten times a second and once more when the work ends.
Hook = Callable[[int, int], Any]

class Error(Exception):
    """An error tracelab reports: bad input, a missing table, a failed query."""

class UsageError(Error):
    """A usage error: a wrong name, parameter or option (the CLI's exit code 2)."""

class Table:
    """A table of results, read through the Arrow PyCapsule interface."""

    @property
    def num_rows(self) -> int: ...
    @property
    def column_names(self) -> List[str]: ...
    def __len__(self) -> int: ...
    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...
    def _values_address(self, name: str) -> int: ...

class Store:
    @property
    def path(self) -> str: ...
    def tables(self) -> Table: ...
    def query(
        self, text: str, params: Dict[str, str], memory_limit: Optional[int] = None
    ) -> Tuple[Table, List[str]]: ...
    def analyze(self, id: str, params: Sequence[Tuple[str, str]]) -> Tuple[str, Table]: ...
    def simulate(
        self,
        options: Dict[str, Any],
        threads: Optional[int] = None,
        custom: Sequence[Tuple[int, str, bool, Any]] = (),
        jobs: bool = False,
        progress: Optional[Hook] = None,
    ) -> Tuple[str, Table, Optional[Table]]: ...
    def report(
        self,
        out: str,
        only: Sequence[str] = (),
        formats: Sequence[str] = (),
        check: bool = False,
        specs: Sequence[str] = (),
        max_figures: Optional[int] = None,
        cache: bool = True,
        stamp: Optional[str] = None,
        jobs: Optional[int] = None,
        memory_budget: Optional[float] = None,
        progress: Optional[Hook] = None,
    ) -> Tuple[List[str], str, List[int], List[str], List[str], Optional[List[str]]]: ...

class Job:
    """A job as a policy sees it (read-only; times in seconds)."""

    id: int
    submit: float
    duration: float
    gpus: float
    cpus: Optional[float]
    user: int
    vc: int
    group: int
    gpu_type: Optional[int]
    priority: int
    remaining: float
    attained: float
    executed: float
    queued_at: float
    preemptions: int

class State:
    """What a full-control policy sees at one scheduling pass (valid while `schedule` runs)."""

    @property
    def now(self) -> float: ...
    @property
    def round(self) -> int: ...
    @property
    def waiting(self) -> List[Job]: ...
    @property
    def running(self) -> List[Job]: ...
    @property
    def free_gpus(self) -> List[int]: ...
    @property
    def node_gpus(self) -> List[int]: ...
    def nodes_of(self, job: int) -> Optional[Tuple[int, int]]: ...
    def try_start(self, job: Union[Job, int], gpu: Optional[int] = None) -> bool: ...
    def evict(self, job: Union[Job, int]) -> None: ...

def open_store(path: Optional[str] = None, progress: Optional[Hook] = None) -> Tuple[Store, List[str]]: ...
def ingest(
    dir: str,
    store: Optional[str] = None,
    force: bool = False,
    strict: bool = False,
    max_record_bytes: Optional[int] = None,
    progress: Optional[Hook] = None,
) -> Tuple[Store, List[str]]: ...
def synth(
    trace: str,
    out: str,
    scale: float = 0.01,
    seed: int = 1,
    archive: bool = False,
    corrupt: Optional[float] = None,
    cpu_contention: bool = True,
    colocation: bool = True,
) -> List[Tuple[str, str, int, int, str]]: ...
