"""Scheduling policies written in Python, run by tracelab's Rust engine.

Subclass :class:`Policy` and define one of two methods:

``key(self, job, now)``
    The ordering hook. The engine asks for a job's key when it joins the
    wait queue; smaller keys run first, ties go to the earlier submission,
    then the lower job number (as the built-in policies'). A key is a
    number or a tuple of up to two numbers. The run's discipline
    (``greedy``: start every job that fits, in key order; ``strict``;
    ``easy``) and placement apply as they do to ``fifo`` or ``sjf``.
    ``rekey`` says when waiting jobs are asked again: ``None`` (never, the
    default), ``"pass"`` (before every scheduling pass) or a number of
    seconds. Defining ``keys(self, jobs, now)`` too (a list of jobs in, a
    list of keys out) lets a re-key ask for all waiting jobs in one call.

``schedule(self, state)``
    Full control. At every scheduling pass while jobs wait, the engine
    calls it with a :class:`State`: ``state.now``, ``state.waiting`` (in
    submission order), ``state.running``, ``state.free_gpus`` per node.
    Act at once with ``state.try_start(job)`` (True if it fit and started,
    placed by the run's placement; ``gpu=`` starts a job of at most one GPU
    beside an occupied GPU's tenants) and ``state.evict(job)``, and/or
    return decisions applied in order after the call: a job (or its
    number) or :class:`Start` to start it, :class:`Evict` to suspend it.
    A returned start that does not fit, an unknown job, a job started
    twice or evicted while not running raise :class:`tracelab.UsageError`
    naming the job, the round and the time.

Jobs are :class:`tracelab.Job` objects (read-only): ``id``, ``submit``,
``duration`` (the trace's run time, seconds), ``gpus``, ``cpus``, ``user``,
``vc``, ``group`` (the replay's numbers), ``gpu_type``, ``priority``, and
their progress: ``remaining``, ``attained`` (GPU-seconds), ``executed``,
``queued_at``, ``preemptions``. Times are seconds from the replay's start.

An exception raised in a policy stops the replay and is raised by
``Store.simulate`` as itself. One policy object serves every run of a call
(each placement and load, each partition of a partitioned cluster); its
``reset()`` is called, when defined, before each.
"""

from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Sequence, Tuple, Union


class Start(NamedTuple):
    """A decision of ``schedule``: start waiting job ``job`` (a job or its
    number) alone on free GPUs, or, with ``gpu``, beside that occupied
    GPU's tenants."""

    job: Any
    gpu: Optional[int] = None


class Evict(NamedTuple):
    """A decision of ``schedule``: suspend running job ``job``; it waits
    again with its progress and pays the run's preemption overhead."""

    job: Any


class Policy:
    """Base class of a scheduling policy written in Python; see the module
    documentation (``help(tracelab.policy)``). ``name`` is the policy's
    name in the results (default: the class name)."""

    #: When waiting jobs are re-keyed: None, "pass" or seconds (ordering policies).
    rekey: Union[None, str, float] = None
    #: The policy's name in the results; the class name when None.
    name: Optional[str] = None

    def policy_name(self) -> str:
        return self.name or type(self).__name__

    def __repr__(self) -> str:
        return f"<tracelab.Policy {self.policy_name()}>"


def _is_full(p: Any) -> bool:
    has_key = callable(getattr(p, "key", None))
    has_schedule = callable(getattr(p, "schedule", None))
    if has_key == has_schedule:
        from ._tracelab import UsageError

        what = "both key and schedule" if has_key else "neither key(self, job, now) nor schedule(self, state)"
        raise UsageError(f"policy {p!r}: defines {what}; a policy defines exactly one")
    return has_schedule


def _split_policies(policy: Any) -> Tuple[str, List[Tuple[int, str, bool, Any]]]:
    """The named policies as the command's comma-separated list, and the
    Python ones with their positions, names (unique) and kinds."""
    items: Sequence[Any] = [policy] if isinstance(policy, (str, Policy)) or not isinstance(policy, (list, tuple)) else policy
    names: List[str] = []
    custom: List[Tuple[int, str, bool, Any]] = []
    taken: set = set()
    position = 0
    for item in items:
        if isinstance(item, str):
            parts = [p.strip() for p in item.split(",") if p.strip()]
            names.extend(parts)
            taken.update(parts)
            position += len(parts)
            continue
        full = _is_full(item)
        base = item.policy_name() if isinstance(item, Policy) else (getattr(item, "name", None) or type(item).__name__)
        name, n = base, 2
        while name in taken:
            name, n = f"{base}#{n}", n + 1
        taken.add(name)
        custom.append((position, name, full, item))
        position += 1
    return ",".join(names), custom
