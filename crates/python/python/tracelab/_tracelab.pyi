# Type stubs of the native module tracelab._tracelab (crates/python/src).
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

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
    ) -> Tuple[str, Table, Optional[Table]]: ...

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

def open_store(path: Optional[str] = None) -> Store: ...
def ingest(dir: str, store: Optional[str] = None, force: bool = False) -> Store: ...
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
