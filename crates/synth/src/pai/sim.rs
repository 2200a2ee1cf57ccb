//! The event-driven cluster simulation behind the PAI tables.
//!
//! Jobs arrive at their submission times; each task becomes ready after a
//! planted queueing delay (calibrated per GPU type and request class,
//! NSDI'22 Fig 5) and is then placed all-or-nothing (gang) on machines of
//! its assigned GPU type (CPU-only tasks: CPU machines first, then any)
//! wherever its per-instance requests fit the free capacity. A task that
//! does not fit waits in its type's queue (backfilled), which adds the
//! capacity waits. Instance ends free capacity. Machine integrals make the
//! machine metrics exact lifetime averages; the planted effects stretch an
//! instance's runtime by its machine's CPU load and co-location at start.
//! Rows are written when a task finishes (instances of a task stay
//! together) and when a job finishes; what is unfinished at the end of the
//! window is written as `Running` / `Waiting`.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use super::super::rng::Rng;
use super::super::Effects;
use super::emit::Tables;
use super::group::TaskSpec;
use super::machines::{Cluster, Load, Machine, CPU};
use super::params as p;
use super::planted::{planted_wait, slowdown, Pool};
use super::state::{Averages, Inst, JobState, Slab, TaskState};
use super::workload::Workload;
use tracelab_schema::error::Result;

/// Event kinds, in the order they are handled at equal times: ends free
/// capacity before arrivals and ready tasks look for it.
const END: u8 = 0;
const ARRIVE: u8 = 1;
const READY: u8 = 2;
const RETRY: u8 = 3;
/// Queued tasks are retried at most this often (s) per type.
const RETRY_EVERY: i64 = 30;
/// Failed placement attempts per retry before giving up until the next.
const RETRY_ATTEMPTS: usize = 12;

type Event = Reverse<(i64, u8, u64, u32, u32)>;

pub struct Sim<'a> {
    w: &'a Workload,
    machines: Vec<Machine>,
    by_type: [Vec<usize>; 6],
    others: Vec<usize>,
    heap: BinaryHeap<Event>,
    seq: u64,
    jobs: Slab<JobState>,
    tasks: Slab<TaskState>,
    queues: [VecDeque<u32>; 6],
    pools: [Pool; 6],
    retry_at: [i64; 6],
    rng: Rng,
    effects: Effects,
    seed: u64,
    t_end: i64,
    out: Tables,
}

impl<'a> Sim<'a> {
    pub fn new(w: &'a Workload, cluster: Cluster, effects: Effects, seed: u64, t_end: i64, out: Tables) -> Self {
        let pools = Pool::of(&cluster.machines);
        let others = (0..cluster.machines.len()).filter(|&i| cluster.machines[i].kind != CPU).collect();
        Sim {
            w,
            machines: cluster.machines,
            by_type: cluster.by_type,
            others,
            heap: BinaryHeap::new(),
            seq: 0,
            jobs: Slab::new(),
            tasks: Slab::new(),
            queues: Default::default(),
            pools,
            retry_at: [i64::MIN; 6],
            rng: Rng::stream(seed, "pai:placement"),
            effects,
            seed,
            t_end,
            out,
        }
    }

    fn push(&mut self, t: i64, kind: u8, a: u32, b: u32) {
        self.seq += 1;
        self.heap.push(Reverse((t, kind, self.seq, a, b)));
    }

    /// Runs the window and writes every row; returns the tables.
    pub fn run(mut self) -> Result<Tables> {
        if !self.w.jobs.is_empty() {
            self.push(self.w.jobs[0].0, ARRIVE, 0, 0);
        }
        while let Some(Reverse((t, kind, _, a, b))) = self.heap.pop() {
            if t > self.t_end {
                break;
            }
            match kind {
                END => self.end(t, a, b)?,
                ARRIVE => self.arrive(t, a)?,
                READY => self.ready(t, a),
                _ => self.retry(t, a as usize),
            }
        }
        self.flush()?;
        Ok(self.out)
    }

    fn arrive(&mut self, t: i64, idx: u32) -> Result<()> {
        if let Some(&(next, _)) = self.w.jobs.get(idx as usize + 1) {
            self.push(next, ARRIVE, idx + 1, 0);
        }
        let gi = self.w.jobs[idx as usize].1;
        let g = &self.w.groups[gi as usize];
        let mut rng = Rng::new(self.seed ^ key(idx, 0xA));
        let job = JobState {
            idx,
            group: gi,
            name: rng.hex(24),
            inst_id: rng.hex(60),
            submit: t,
            end: t,
            tasks_left: g.tasks.len() as u32,
            failed: rng.chance(g.fail as f64),
            running: false,
            waiting: false,
            started: false,
            factor: rng.lognormal(1.0, p::JOB_NOISE),
            fail_at: rng.uniform(0.1, 1.0),
            use_cpu: rng.lognormal(1.0, p::JOB_USAGE_SIGMA),
            use_gpu: rng.lognormal(1.0, p::JOB_USAGE_SIGMA),
            use_mem: rng.lognormal(1.0, p::JOB_USAGE_SIGMA),
        };
        self.out.group_tag(&job, self.w)?;
        let (failed, factor) = (job.failed, job.factor);
        let j = self.jobs.insert(job);
        for (which, spec) in g.tasks.iter().enumerate() {
            let pool = if spec.plan_gpu.is_some() { g.kind } else { CPU };
            let typical = p::RUNTIME_MEDIAN[g.kind] * g.norm as f64 * spec.stretch as f64;
            let wait = planted_wait(pool, spec, typical, g.rel_runtime as f64 * factor, &mut rng);
            let task = TaskState { job: j, which: which as u8, submit: t, pool, failed, insts: Vec::new(), left: 0 };
            let ti = self.tasks.insert(task);
            self.push(t + wait, READY, ti, 0);
        }
        Ok(())
    }

    /// A task whose planted delay is over: placed now, or queued until
    /// capacity frees up.
    fn ready(&mut self, t: i64, ti: u32) {
        let pool = self.tasks.get(ti).pool;
        if !self.place(t, ti) {
            self.queues[pool].push_back(ti);
            self.schedule_retry(t, pool);
        }
    }

    fn schedule_retry(&mut self, t: i64, pool: usize) {
        let at = (t / RETRY_EVERY + 1) * RETRY_EVERY;
        if self.retry_at[pool] < at && !self.queues[pool].is_empty() {
            self.retry_at[pool] = at;
            self.push(at, RETRY, pool as u32, 0);
        }
    }

    /// Tries the queued tasks of a type in order, backfilling past those
    /// that do not fit yet. No reservations: gangs are capped to a small
    /// share of their type's machines (`GANG_CAPACITY_SHARE`), so they find
    /// room in the daily troughs; reserving for them would idle a small
    /// pool for as long as its longest instance runs.
    fn retry(&mut self, t: i64, pool: usize) {
        let mut waiting = std::mem::take(&mut self.queues[pool]);
        let mut kept = VecDeque::with_capacity(waiting.len());
        let mut failures = 0;
        while let Some(ti) = waiting.pop_front() {
            if failures >= RETRY_ATTEMPTS || !self.place(t, ti) {
                failures += 1;
                kept.push_back(ti);
            }
        }
        self.queues[pool] = kept;
    }

    /// The spec of a live task.
    fn spec(&self, ti: u32) -> &'a TaskSpec {
        let task = self.tasks.items[ti as usize].as_ref().expect("live task");
        let job = self.jobs.items[task.job as usize].as_ref().expect("live job");
        &self.w.groups[job.group as usize].tasks[task.which as usize]
    }

    /// Places all instances of a task now, or none.
    fn place(&mut self, t: i64, ti: u32) -> bool {
        let spec = self.spec(ti);
        let pool = self.tasks.get(ti).pool;
        let need = Load {
            cpu: spec.plan_cpu as i64,
            mem: spec.plan_mem as i64,
            gpu: spec.plan_gpu.unwrap_or(0) as i64,
            use_cpu: 0.0,
            use_gpu: 0.0,
            use_read: 0.0,
        };
        let Some(plan) = self.find(pool, &need, spec.inst_num) else { return false };
        self.start(t, ti, spec, need, &plan);
        true
    }

    /// Randomized first fit: machines in cyclic order from a random one,
    /// each taking as many instances as fit.
    fn find(&mut self, pool: usize, need: &Load, n: u32) -> Option<Vec<(usize, u32)>> {
        let mut plan = Vec::new();
        let mut left = n;
        let lists: [&[usize]; 2] =
            if pool == CPU { [&self.by_type[CPU], &self.others] } else { [&self.by_type[pool], &[]] };
        for list in lists {
            if list.is_empty() {
                continue;
            }
            let first = self.rng.below(list.len() as u64) as usize;
            for k in 0..list.len() {
                let m = list[(first + k) % list.len()];
                let c = self.machines[m].fits(need, left);
                if c > 0 {
                    plan.push((m, c));
                    left -= c;
                    if left == 0 {
                        return Some(plan);
                    }
                }
            }
        }
        None
    }

    fn start(&mut self, t: i64, ti: u32, spec: &TaskSpec, need: Load, plan: &[(usize, u32)]) {
        let job_slot = self.tasks.get(ti).job;
        let (factor, fail_at, use_cpu, use_gpu, idx, g) = {
            let j = self.jobs.get(job_slot);
            j.started = true;
            (j.factor, j.fail_at, j.use_cpu, j.use_gpu, j.idx, j.group)
        };
        let which = self.tasks.get(ti).which;
        let failed = self.tasks.get(ti).failed;
        let group = &self.w.groups[g as usize];
        let mut rng = Rng::new(self.seed ^ key(idx, 0xB0 + which as u64));
        let mut insts = Vec::with_capacity(spec.inst_num as usize);
        for &(m, c) in plan {
            let machine = &mut self.machines[m];
            machine.advance(t);
            for _ in 0..c {
                let load = Load {
                    use_cpu: (spec.plan_cpu as f64 * spec.cpu_ratio as f64 * use_cpu * rng.lognormal(1.0, 0.1))
                        .min(1.1 * spec.plan_cpu as f64),
                    use_gpu: spec.plan_gpu.map_or(0.0, |gpu| {
                        (gpu as f64 * spec.gpu_ratio as f64 * use_gpu * rng.lognormal(1.0, 0.1))
                            .min(gpu.max(100) as f64)
                    }),
                    use_read: spec.read_bps as f64 * rng.lognormal(1.0, 0.3),
                    ..need
                };
                machine.add(&load);
                self.pools[machine.kind].add(&load, 1.0);
                let dev = if spec.plan_gpu.is_some() { machine.take_gpu_device() } else { 0 };
                let mut inst = Inst::unplaced();
                inst.machine = m as u32;
                inst.start = t;
                inst.snap = machine.integrals;
                inst.load = load;
                inst.dev = dev;
                insts.push(inst);
            }
        }
        // Runtimes once the whole task is on its machines, so the planted
        // effects see the load it creates.
        let base = group.runtime as f64 * factor * spec.stretch as f64;
        for (k, inst) in insts.iter_mut().enumerate() {
            let m = &self.machines[inst.machine as usize];
            let stretch = slowdown(m, &self.pools[m.kind], self.effects);
            let mut rt = base * rng.lognormal(1.0, p::INSTANCE_NOISE) * stretch;
            if failed {
                rt *= fail_at;
            }
            inst.end = t + (rt.round() as i64).max(1);
            self.seq += 1;
            self.heap.push(Reverse((inst.end, END, self.seq, ti, k as u32)));
        }
        let task = self.tasks.get(ti);
        task.left = insts.len() as u32;
        task.insts = insts;
    }

    fn end(&mut self, t: i64, ti: u32, k: u32) -> Result<()> {
        let task = self.tasks.get(ti);
        let inst = &mut task.insts[k as usize];
        let m = &mut self.machines[inst.machine as usize];
        m.advance(t);
        let dt = (t - inst.start).max(1) as f64;
        let d = m.integrals;
        inst.avg = Some(Averages {
            workers: (d.workers - inst.snap.workers) as f64 / dt,
            cpu: (d.cpu - inst.snap.cpu) / dt,
            gpu: (d.gpu - inst.snap.gpu) / dt,
            read: (d.read - inst.snap.read) / dt,
        });
        m.remove(&inst.load);
        self.pools[m.kind].add(&inst.load, -1.0);
        inst.done = true;
        inst.seen_until = t;
        let kind = m.kind;
        task.left -= 1;
        let finished = task.left == 0;
        self.schedule_retry(t, kind);
        self.schedule_retry(t, CPU);
        if finished {
            self.finish_task(ti)?;
        }
        Ok(())
    }

    fn finish_task(&mut self, ti: u32) -> Result<()> {
        let task = self.tasks.take(ti);
        let job = self.jobs.get(task.job);
        if let Some(end) = task.insts.iter().filter_map(Inst::ended).max() {
            job.end = job.end.max(end);
        }
        match task.status() {
            "Running" => job.running = true,
            "Waiting" => job.waiting = true,
            _ => {}
        }
        job.tasks_left -= 1;
        let done = job.tasks_left == 0;
        let job = self.jobs.items[task.job as usize].as_ref().expect("live job");
        self.out.task(job, &task, self.w, &self.machines)?;
        if done {
            let job = self.jobs.take(task.job);
            self.out.job(&job, self.w)?;
        }
        Ok(())
    }

    /// Writes what is unfinished at the end of the window.
    fn flush(&mut self) -> Result<()> {
        for ti in 0..self.tasks.items.len() as u32 {
            if self.tasks.items[ti as usize].is_none() {
                continue;
            }
            let spec = self.spec(ti);
            let task = self.tasks.get(ti);
            if task.insts.is_empty() {
                task.insts = (0..spec.inst_num).map(|_| Inst::unplaced()).collect();
            }
            for inst in task.insts.iter_mut().filter(|i| !i.done && i.placed().is_some()) {
                inst.seen_until = self.t_end;
            }
            self.finish_task(ti)?;
        }
        Ok(())
    }
}

/// Seed offset of a job's random streams.
fn key(job: u32, stream: u64) -> u64 {
    let mut x = ((job as u64) << 12 | stream).wrapping_mul(0xD6E8_FEB8_6659_FD93);
    x ^= x >> 32;
    x.wrapping_mul(0x9E37_79B9_7F4A_7C15)
}
