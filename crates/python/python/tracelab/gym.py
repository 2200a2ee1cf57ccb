"""A Gymnasium environment for cluster scheduling on tracelab's engine
(the optional extra ``tracelab[gym]``: ``pip install gymnasium``).

``SchedulingEnv`` replays a job list or a trace on tracelab's Rust engine
and asks the agent for one scheduling decision per step, through the
full-control policy hook (``tracelab.Policy.schedule``): the replay runs on
a thread of its own and waits at each decision for the agent's action.

Observation (``Box(0, inf, (3 * max_queue + 3,), float32)``): for each of
the first ``max_queue`` waiting jobs in submission order, its GPUs, its
duration in hours (the trace's run time: an oracle's estimate) and the
hours it has waited (zeros where fewer jobs wait); then the share of the
cluster's GPUs free, the number of jobs waiting and the number running.

Action (``Discrete(max_queue + 1)``): ``i < max_queue`` starts the i-th
waiting job, placed by the run's placement, and asks for the next decision
at the same time; ``max_queue`` (or an index past the waiting jobs, or a
job that does not fit now) lets time run to the next event (an arrival or
a completion).

Reward (``reward=``), for the time from one decision to the next:
``"wait"``, minus the job-hours spent waiting; ``"jct"``, minus the
job-hours spent in the system (waiting or running; over an episode, minus
the total JCT in hours); ``"utilization"``, the share of the GPUs busy
times the hours. The episode ends when every job has finished.
"""

from __future__ import annotations

import os
import queue
import tempfile
import threading
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - the extra is optional
    raise ImportError("tracelab.gym needs gymnasium: pip install 'tracelab[gym]' (or gymnasium)") from e

import tracelab

REWARDS = ("wait", "jct", "utilization")
_HOUR = 3600.0


class _Stop(Exception):
    """Ends a replay the environment no longer needs (reset, close)."""


class _Agent(tracelab.Policy):
    """The full-control policy that hands each decision to the environment."""

    every_pass = True
    name = "agent"

    def __init__(self, env: "SchedulingEnv") -> None:
        self.env = env

    def schedule(self, state: tracelab.State) -> None:
        env = self.env
        env._account(state)
        while True:
            waiting = state.waiting
            if not waiting:
                break
            env._to_env.put(("decide", env._observe(state, waiting)))
            action = env._to_agent.get()
            if action is _Stop:
                raise _Stop()
            if action >= min(len(waiting), env.max_queue) or not state.try_start(waiting[action]):
                break
        env._close_round(state)


class SchedulingEnv(gymnasium.Env):
    """One scheduling decision per step over a job list or a trace.

    ``jobs``: a CSV job list (``tracelab simulate --jobs``'s columns) or a
    sequence of ``(submit_s, duration_s, gpus)``; or ``trace="philly"``
    (with ``store=``, default the bundled samples, and any of
    ``Store.simulate``'s options such as ``sample`` or ``window``).
    ``cluster``: ``NODESxGPUS`` or ``from-trace``.
    """

    metadata: Dict[str, Any] = {"render_modes": []}

    def __init__(
        self,
        jobs: Union[None, str, "os.PathLike[str]", Sequence[Tuple[float, float, float]]] = None,
        *,
        trace: Optional[str] = None,
        store: Optional[tracelab.Store] = None,
        cluster: str = "4x8",
        reward: str = "wait",
        max_queue: int = 16,
        **options: Any,
    ) -> None:
        if reward not in REWARDS:
            raise tracelab.UsageError(f"reward={reward!r}: expected one of {', '.join(REWARDS)}")
        if (jobs is None) == (trace is None):
            raise tracelab.UsageError("SchedulingEnv: give jobs (a CSV job list or tuples) or trace, not both")
        if max_queue < 1:
            raise tracelab.UsageError("max_queue: expected at least 1")
        self.reward_kind = reward
        self.max_queue = max_queue
        self._tmp: Optional[tempfile.TemporaryDirectory] = None
        self._options = dict(options, cluster=cluster)
        if trace is not None:
            self._options["trace"] = trace
        elif isinstance(jobs, (str, os.PathLike)):
            self._options["jobs"] = os.fspath(jobs)
        else:
            self._tmp = tempfile.TemporaryDirectory(prefix="tracelab-gym-")
            path = os.path.join(self._tmp.name, "jobs.csv")
            with open(path, "w") as f:
                f.write("submit_s,duration_s,gpus\n")
                for submit, duration, gpus in jobs:
                    f.write(f"{submit},{duration},{gpus}\n")
            self._options["jobs"] = path
        self._store = store if store is not None else tracelab.open()
        self.observation_space = spaces.Box(0.0, np.inf, shape=(3 * max_queue + 3,), dtype=np.float32)
        self.action_space = spaces.Discrete(max_queue + 1)
        self._thread: Optional[threading.Thread] = None
        self._to_env: "queue.Queue" = queue.Queue()
        self._to_agent: "queue.Queue" = queue.Queue()
        self._gpus = 0.0
        self._last: Optional[Tuple[float, float, float, float]] = None
        self._pending = 0.0
        self.result: Optional[tracelab.Analysis] = None

    # ---- the replay's side (on its thread)

    def _account(self, state: tracelab.State) -> None:
        """Adds the reward of the time since the last decision."""
        if self._gpus == 0.0:
            self._gpus = float(sum(state.node_gpus))
        if self._last is not None:
            at, waiting, running, busy = self._last
            hours = (state.now - at) / _HOUR
            if self.reward_kind == "wait":
                self._pending -= waiting * hours
            elif self.reward_kind == "jct":
                self._pending -= (waiting + running) * hours
            else:
                self._pending += busy / self._gpus * hours
        self._last = None

    def _close_round(self, state: tracelab.State) -> None:
        running = state.running
        busy = self._gpus - float(sum(state.free_gpus))
        self._last = (state.now, float(len(state.waiting)), float(len(running)), busy)

    def _observe(self, state: tracelab.State, waiting: list) -> np.ndarray:
        obs = np.zeros(3 * self.max_queue + 3, dtype=np.float32)
        for i, job in enumerate(waiting[: self.max_queue]):
            obs[3 * i : 3 * i + 3] = (job.gpus, job.duration / _HOUR, max(0.0, state.now - job.queued_at) / _HOUR)
        obs[-3] = float(sum(state.free_gpus)) / self._gpus
        obs[-2] = len(waiting)
        obs[-1] = len(state.running)
        return obs

    def _replay(self) -> None:
        try:
            self.result = self._store.simulate(policy=_Agent(self), **self._options)
            self._to_env.put(("done", None))
        except _Stop:
            pass
        except BaseException as e:  # handed to the caller of step/reset
            self._to_env.put(("error", e))

    def _stop(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            self._to_agent.put(_Stop)
            self._thread.join()
        self._thread = None
        self._to_env = queue.Queue()
        self._to_agent = queue.Queue()

    def _next(self) -> Tuple[np.ndarray, bool]:
        kind, value = self._to_env.get()
        if kind == "error":
            self._thread = None
            raise value
        if kind == "done":
            self._thread = None
            return np.zeros(self.observation_space.shape, dtype=np.float32), True
        return value, False

    # ---- Gymnasium's API

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        super().reset(seed=seed)
        self._stop()
        self._gpus, self._last, self._pending, self.result = 0.0, None, 0.0, None
        self._thread = threading.Thread(target=self._replay, name="tracelab-gym-replay", daemon=True)
        self._thread.start()
        obs, done = self._next()
        self._pending = 0.0
        return obs, {"finished": done}

    def step(self, action):
        if self._thread is None:
            raise tracelab.UsageError("step() after the episode ended: call reset()")
        self._to_agent.put(int(action))
        obs, done = self._next()
        reward, self._pending = self._pending, 0.0
        return obs, float(reward), done, False, {}

    def close(self) -> None:
        self._stop()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
