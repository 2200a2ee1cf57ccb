"""tracelab.gym.SchedulingEnv: Gymnasium's environment checker passes; an
agent that always picks the first waiting job is strict FIFO (the engine's
`fifo` under the `strict` discipline, job for job); and an episode's rewards
add up to minus the total wait, or minus the total JCT, in hours, as the
replay's own per-job rows give them."""

from __future__ import annotations

import math
import random

import polars as pl
import pytest

gymnasium = pytest.importorskip("gymnasium")
from gymnasium.utils.env_checker import check_env  # noqa: E402

import tracelab  # noqa: E402
from tracelab.gym import SchedulingEnv  # noqa: E402

JOBS = [(0, 600, 2), (0, 300, 4), (10, 60, 1), (20, 1200, 8), (30, 30, 1), (40, 90, 2), (600, 60, 4)]


def random_jobs(n=60, seed=7):
    rng = random.Random(seed)
    t, out = 0, []
    for _ in range(n):
        t += rng.choice([0, 5, 60, 300])
        out.append((t, rng.randint(10, 3000), rng.choice([1, 1, 2, 4, 8])))
    return out


def test_the_environment_checker_passes(store):
    env = SchedulingEnv(JOBS, store=store, cluster="1x8", max_queue=4)
    try:
        check_env(env, skip_render_check=True)
    finally:
        env.close()


def play(env, choose):
    obs, _ = env.reset(seed=0)
    total, steps, done = 0.0, 0, False
    while not done:
        obs, reward, done, truncated, _ = env.step(choose(obs))
        assert env.observation_space.contains(obs)
        total += reward
        steps += 1
    return total, steps


@pytest.mark.parametrize("reward", ["wait", "jct"])
def test_always_the_first_job_is_strict_fifo_and_rewards_add_up(store, reward, tmp_path):
    jobs = random_jobs()
    env = SchedulingEnv(jobs, store=store, cluster="2x8", reward=reward, max_queue=8, per_job=True)
    try:
        total, steps = play(env, lambda obs: 0)
        assert steps > len(jobs)
        agent = pl.DataFrame(env.result.per_job)
    finally:
        env.close()
    path = tmp_path / "jobs.csv"
    path.write_text("submit_s,duration_s,gpus\n" + "".join(f"{s},{d},{g}\n" for s, d, g in jobs))
    fifo = pl.DataFrame(store.simulate(jobs=str(path), cluster="2x8", discipline="strict", per_job=True).per_job)
    assert agent.select("job_id", "start_s", "end_s").to_dicts() == fifo.select("job_id", "start_s", "end_s").to_dicts()
    column = {"wait": "wait_s", "jct": "jct_s"}[reward]
    assert math.isclose(total, -agent[column].sum() / 3600, rel_tol=1e-9, abs_tol=1e-9)


def test_a_bad_reward_is_refused(store):
    with pytest.raises(tracelab.UsageError, match="reward='speed'"):
        SchedulingEnv(JOBS, store=store, reward="speed")
