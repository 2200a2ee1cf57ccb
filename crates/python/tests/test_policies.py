"""Policies written in Python, run by the Rust engine.

A Python FIFO and a Python SJF (the ordering hook) must give the engine's
`fifo` and `sjf` schedules job for job (every job's start and end equal), on
the bundled samples and on random workloads, under each discipline; a
full-control FIFO written in Python must give `fifo`'s schedule; a custom key
on a tiny job list must give the schedule worked out by hand below; and bad
return values and exceptions must stop the replay with a clear error."""

from __future__ import annotations

import random

import polars as pl
import pytest

import tracelab
from test_verbs import comparable


class PyFifo(tracelab.Policy):
    def key(self, job, now):
        return 0  # every key equal: the engine's tie-break (submission, then number) is the order


class PySjf(tracelab.Policy):
    def key(self, job, now):
        return job.duration


class PySjfEachPass(tracelab.Policy):
    """SJF re-keyed before every pass, through the batched `keys`."""

    rekey = "pass"
    name = "sjf-each-pass"

    def key(self, job, now):
        return job.duration

    def keys(self, jobs, now):
        return [j.duration for j in jobs]


class FullFifo(tracelab.Policy):
    """FIFO with full control: walk the waiting jobs in submission order and
    start every one that fits (the engine's greedy discipline)."""

    def schedule(self, state):
        for job in state.waiting:
            state.try_start(job)


def schedules(result) -> dict:
    """{run: {job_id: (start_s, end_s)}} from a replay's per-job rows."""
    df = pl.DataFrame(result.per_job)
    out: dict = {}
    for row in df.select("run", "job_id", "start_s", "end_s").iter_rows():
        out.setdefault(row[0], {})[row[1]] = (row[2], row[3])
    return out


def write_jobs(path, rows) -> str:
    path.write_text("submit_s,duration_s,gpus\n" + "".join(f"{s},{d},{g}\n" for s, d, g in rows))
    return str(path)


def random_jobs(seed: int, n: int, fractional: bool) -> list:
    rng = random.Random(seed)
    sizes = [1, 1, 1, 2, 4, 8, 16] + ([0.25, 0.5] if fractional else [])
    t = 0
    rows = []
    for _ in range(n):
        t += rng.choice([0, 0, 1, 5, 30, 120])
        rows.append((t, rng.randint(1, 3600), rng.choice(sizes)))
    return rows


@pytest.mark.parametrize(
    "trace, options",
    [
        # The samples' own clusters rarely queue: arrivals compressed (load)
        # on a small cluster make fifo and sjf differ. PAI's jobs include
        # fractions of a GPU, which share GPUs.
        ("pai", {"cluster": "2x8", "load": 20, "unplaceable": "skip"}),
        ("philly", {"cluster": "2x8", "load": 5, "unplaceable": "skip"}),
        ("helios", {"load": 4}),
    ],
)
def test_python_fifo_and_sjf_are_the_engines_on_the_samples(store, trace, options):
    policies = ["fifo", PyFifo(), "sjf", PySjf()]
    got = schedules(store.simulate(trace=trace, policy=policies, per_job=True, **options))
    assert len(got["fifo"]) > 50
    assert got["PyFifo"] == got["fifo"]
    assert got["PySjf"] == got["sjf"]
    assert got["fifo"] != got["sjf"], "the samples should tell fifo from sjf"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("discipline", ["greedy", "strict", "easy"])
def test_python_fifo_and_sjf_are_the_engines_on_random_workloads(store, tmp_path, seed, discipline):
    jobs = write_jobs(tmp_path / "jobs.csv", random_jobs(seed, 400, fractional=True))
    result = store.simulate(
        jobs=jobs,
        cluster="4x8",
        discipline=discipline,
        policy=["fifo", "sjf", PyFifo(), PySjf(), PySjfEachPass()],
        per_job=True,
    )
    got = schedules(result)
    assert got["PyFifo"] == got["fifo"]
    assert got["PySjf"] == got["sjf"]
    assert got["sjf-each-pass"] == got["sjf"]
    waits = [r for r in result.part("summary")["rows"]]
    assert len(waits) == 5


@pytest.mark.parametrize("seed", [4, 5])
def test_a_full_control_fifo_is_the_engines_fifo(store, tmp_path, seed):
    # Whole GPUs: a full-control policy holds GPUs as its round places them
    # (a fractional job takes a GPU of its own), which fifo's shared GPUs do not.
    jobs = write_jobs(tmp_path / "jobs.csv", random_jobs(seed, 300, fractional=False))
    got = schedules(store.simulate(jobs=jobs, cluster="4x8", policy=["fifo", FullFifo()], per_job=True))
    assert got["FullFifo"] == got["fifo"]
    assert len({s for s, _ in got["fifo"].values()}) > 20, "jobs should start at many times"


class LargestFirst(tracelab.Policy):
    def key(self, job, now):
        return -job.gpus


@pytest.mark.parametrize(
    "discipline, starts",
    [
        # One node of 4 GPUs. j0 (2 GPUs, 10 s) starts at 0. At 1, j1 (1 GPU)
        # and j2 (3 GPUs) arrive; largest first puts j2 ahead, but 2 GPUs are
        # free: greedy skips it and starts j1 (1 GPU left); at 2 j3 (1 GPU)
        # takes the last GPU. j1 and j3 end at 6 (2 GPUs free, j2 still
        # does not fit); j0 ends at 10 and j2 starts then.
        ("greedy", {0: 0.0, 1: 1.0, 2: 10.0, 3: 2.0}),
        # strict stops at the head: j2 blocks j1 and j3 until j0 ends at 10;
        # then j2 (3 GPUs) and j1 (1 GPU) start; j3 waits for them to end at 15.
        ("strict", {0: 0.0, 1: 10.0, 2: 10.0, 3: 15.0}),
    ],
)
def test_largest_first_on_a_job_list_worked_by_hand(store, tmp_path, discipline, starts):
    jobs = write_jobs(tmp_path / "jobs.csv", [(0, 10, 2), (1, 5, 1), (1, 5, 3), (2, 4, 1)])
    result = store.simulate(jobs=jobs, cluster="1x4", discipline=discipline, policy=LargestFirst(), per_job=True)
    got = {int(job): start for job, (start, _) in schedules(result)["LargestFirst"].items()}
    assert got == starts


def test_built_in_and_python_policies_compare_in_one_summary(store):
    result = store.simulate(trace="philly", policy=["fifo", "sjf", PySjf()])
    rows = result.part("summary")["rows"]
    columns = result.part("summary")["columns"]
    policy = columns.index("policy")
    assert [r[policy] for r in rows] == ["fifo", "sjf", "PySjf"]
    same = [i for i, c in enumerate(columns) if c not in ("run", "policy")]
    assert [rows[2][i] for i in same] == [rows[1][i] for i in same]


def test_the_per_job_rows_are_the_clis(cli, store, tmp_path):
    result = store.simulate(trace="philly", policy="fifo,sjf", per_job=True)
    cli("simulate", "--trace", "philly", "--policy", "fifo,sjf", "--out", tmp_path / "out")
    expected = pl.read_parquet(tmp_path / "out" / "jobs.parquet")
    got = pl.DataFrame(result.per_job)
    assert got.columns == expected.columns
    assert comparable(got.to_dicts()) == comparable(expected.to_dicts())


# ---- errors


class BadKey(tracelab.Policy):
    def key(self, job, now):
        return "soon"


class Raises(tracelab.Policy):
    def key(self, job, now):
        if job.id == 3:
            raise ValueError(f"no key for job {job.id}")
        return 0


def test_a_bad_key_is_a_usage_error_naming_the_job(store):
    with pytest.raises(tracelab.UsageError, match=r"BadKey.key returned 'soon' for job 0 at t=.* s: expected a number"):
        store.simulate(trace="philly", policy=BadKey())


def test_an_exception_in_a_policy_is_raised_as_itself(store):
    with pytest.raises(ValueError, match="no key for job 3") as caught:
        store.simulate(trace="philly", policy=["fifo", Raises()])
    assert any(entry.name == "key" for entry in caught.traceback), "the policy's frame is in the traceback"


class ReturnsUnknown(tracelab.Policy):
    def schedule(self, state):
        return [999_999]


class StartsTwice(tracelab.Policy):
    def schedule(self, state):
        first = state.waiting[0]
        return [first, tracelab.Start(first)]


class OverCapacity(tracelab.Policy):
    def schedule(self, state):
        return list(state.waiting)  # every waiting job, fit or not


class EvictsWaiting(tracelab.Policy):
    def schedule(self, state):
        return [tracelab.Evict(state.waiting[0])]


@pytest.mark.parametrize(
    "policy, message",
    [
        (ReturnsUnknown(), r"ReturnsUnknown, round 1 at t=0 s: job 999999: no such job"),
        (StartsTwice(), r"StartsTwice, round 1 at t=0 s: job 0 is already running \(started twice\?\)"),
        (OverCapacity(), r"OverCapacity, round \d+ at t=[\d.]+ s: start job \d+: over capacity"),
        (EvictsWaiting(), r"EvictsWaiting, round 1 at t=0 s: Evict\(job 0\): the job is not running"),
    ],
)
def test_full_control_decisions_are_checked(store, tmp_path, policy, message):
    jobs = write_jobs(tmp_path / "jobs.csv", [(0, 10, 4), (0, 10, 4), (0, 10, 4), (5, 1, 1)])
    with pytest.raises(tracelab.UsageError, match=message):
        store.simulate(jobs=jobs, cluster="1x8", policy=policy)


def test_a_state_kept_after_its_round_refuses(store, tmp_path):
    kept = []

    class Keeps(tracelab.Policy):
        def schedule(self, state):
            kept.append(state)
            for job in state.waiting:
                state.try_start(job)

    jobs = write_jobs(tmp_path / "jobs.csv", [(0, 10, 1)])
    store.simulate(jobs=jobs, cluster="1x8", policy=Keeps())
    with pytest.raises(tracelab.UsageError, match="round that is over"):
        kept[0].waiting


def test_a_policy_defines_key_or_schedule(store):
    class Neither(tracelab.Policy):
        pass

    with pytest.raises(tracelab.UsageError, match="neither key"):
        store.simulate(trace="philly", policy=Neither())
    with pytest.raises(tracelab.UsageError, match='Often: rekey = "often": expected None'):

        class Often(PyFifo):
            rekey = "often"

        store.simulate(trace="philly", policy=Often())


class ShortFirstUnlessOld(tracelab.Policy):
    """Shortest first, but a job that has waited 60 s or more goes ahead."""

    def __init__(self, rekey):
        self.rekey = rekey

    def key(self, job, now):
        return job.duration if now - job.submit < 60 else -1e9


@pytest.mark.parametrize(
    "rekey, starts",
    [
        # One GPU. j0 (0 s, 100 s long) runs 0-100. j1 (1 s, 50 s) is keyed 50
        # on arrival, j2 (50 s, 10 s) 10. Never re-keyed: at 100 j2 goes first
        # (100-110), then j1 (110).
        (None, {0: 0.0, 1: 110.0, 2: 100.0}),
        # Re-keyed every 30 s from the first key (t=0): at 30 and 60 j1 has
        # waited 29 and 59 s (key 50); at 90, 89 s: it goes ahead (j2 has
        # waited 40 s, key 10). At 100 j1 runs (100-150), then j2 (150).
        (30, {0: 0.0, 1: 100.0, 2: 150.0}),
    ],
)
def test_periodic_rekeys_worked_by_hand(store, tmp_path, rekey, starts):
    jobs = write_jobs(tmp_path / "jobs.csv", [(0, 100, 1), (1, 50, 1), (50, 10, 1)])
    result = store.simulate(jobs=jobs, cluster="1x1", policy=ShortFirstUnlessOld(rekey), per_job=True)
    got = {int(job): start for job, (start, _) in schedules(result)["ShortFirstUnlessOld"].items()}
    assert got == starts
