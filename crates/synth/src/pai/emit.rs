//! Turns finished simulation records into the rows of the six generated
//! tables, and synthesizes the measured values (sensor and machine metric)
//! from the instance's usage rates and its machine's integrals, so every
//! row agrees with the placement (same machine, same lifetime, co-located
//! load) and every key joins.

use std::path::Path;

use super::super::out::{CsvOut, RowShape};
use super::super::rng::Rng;
use super::super::{Ctx, FileReport};
use super::group::TaskSpec;
use super::machines::{Machine, CPU, TYPES};
use super::rows::{self, InstanceRow, MetricValues, SensorValues, TaskRow};
use super::state::{Inst, JobState, TaskState};
use super::workload::Workload;
use tracelab_schema::error::Result;
use tracelab_schema::raw::pai as raw;

/// Fields ingest parses as numbers, its status field and its (start, end)
/// span, per table (see `ingest::pai`), so `--corrupt` hits only what
/// ingest rejects.
pub const JOB_SHAPE: RowShape = RowShape { numeric: &[4, 5], status: Some(3), span: Some((4, 5)) };
pub const TASK_SHAPE: RowShape = RowShape { numeric: &[2, 4, 5, 6, 7, 8], status: Some(3), span: Some((4, 5)) };
pub const INSTANCE_SHAPE: RowShape = RowShape { numeric: &[6, 7], status: Some(5), span: Some((6, 7)) };
pub const SENSOR_SHAPE: RowShape =
    RowShape { numeric: &[6, 7, 8, 9, 10, 11, 12, 13, 14, 15], status: None, span: None };
pub const GROUP_TAG_SHAPE: RowShape = RowShape { numeric: &[], status: None, span: None };
pub const METRIC_SHAPE: RowShape =
    RowShape { numeric: &[2, 3, 4, 5, 6, 7, 8, 9, 10, 11], status: None, span: Some((2, 3)) };

/// The six generated tables being written.
pub struct Tables {
    job: CsvOut,
    task: CsvOut,
    instance: CsvOut,
    sensor: CsvOut,
    group_tag: CsvOut,
    metric: CsvOut,
    line: String,
    seed: u64,
}

impl Tables {
    pub fn create(ctx: &Ctx, dir: &Path) -> Result<Tables> {
        let c = ctx.corruption.as_ref();
        Ok(Tables {
            job: CsvOut::create(dir, raw::JOB.file, JOB_SHAPE, c)?,
            task: CsvOut::create(dir, raw::TASK.file, TASK_SHAPE, c)?,
            instance: CsvOut::create(dir, raw::INSTANCE.file, INSTANCE_SHAPE, c)?,
            sensor: CsvOut::create(dir, raw::SENSOR.file, SENSOR_SHAPE, c)?,
            group_tag: CsvOut::create(dir, raw::GROUP_TAG.file, GROUP_TAG_SHAPE, c)?,
            metric: CsvOut::create(dir, raw::MACHINE_METRIC.file, METRIC_SHAPE, c)?,
            line: String::with_capacity(512),
            seed: ctx.seed,
        })
    }

    /// Reports in the order of `raw::pai::TABLES` (machine_spec excluded).
    pub fn finish(self) -> Result<Vec<FileReport>> {
        Ok(vec![
            self.job.finish()?,
            self.task.finish()?,
            self.instance.finish()?,
            self.sensor.finish()?,
            self.group_tag.finish()?,
            self.metric.finish()?,
        ])
    }

    /// The job's `pai_group_tag_table` row (every job has one).
    pub fn group_tag(&mut self, job: &JobState, w: &Workload) -> Result<()> {
        let g = &w.groups[job.group as usize];
        let tag = format!("{:032x}", g.tag);
        let spec = if g.spec { TYPES[g.kind] } else { "" };
        self.line.clear();
        rows::group_tag(&mut self.line, &job.inst_id, &w.users[g.user as usize], spec, &tag, g.workload.unwrap_or(""));
        self.group_tag.row(&self.line)
    }

    pub fn job(&mut self, job: &JobState, w: &Workload) -> Result<()> {
        let g = &w.groups[job.group as usize];
        self.line.clear();
        let end = if job.unfinished() { None } else { Some(job.end) };
        rows::job(&mut self.line, &job.name, &job.inst_id, &w.users[g.user as usize], job.status(), job.submit, end);
        self.job.row(&self.line)
    }

    /// The task row and the rows of its instances (instance, sensor, metric).
    pub fn task(&mut self, job: &JobState, task: &TaskState, w: &Workload, machines: &[Machine]) -> Result<()> {
        let g = &w.groups[job.group as usize];
        let spec = &g.tasks[task.which as usize];
        let mut rng = Rng::new(self.seed ^ row_key(job.idx, task.which));
        let status = task.status();
        let end = task
            .insts
            .iter()
            .filter_map(super::state::Inst::ended)
            .max()
            .filter(|_| status != "Running" && status != "Waiting");
        self.line.clear();
        rows::task(
            &mut self.line,
            &TaskRow {
                job: &job.name,
                name: spec.name,
                inst_num: spec.inst_num,
                status,
                start: task.submit,
                end,
                plan_cpu: spec.plan_cpu as f64,
                plan_mem: spec.plan_mem as f64 / 1024.0,
                plan_gpu: spec.plan_gpu.map(f64::from),
                gpu_type: if spec.plan_gpu.is_some() { TYPES[g.kind] } else { "" },
            },
        );
        self.task.row(&self.line)?;
        for inst in &task.insts {
            self.instance(job, task, spec, inst, machines, &mut rng)?;
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn instance(
        &mut self,
        job: &JobState,
        task: &TaskState,
        spec: &TaskSpec,
        inst: &Inst,
        machines: &[Machine],
        rng: &mut Rng,
    ) -> Result<()> {
        let inst_name = rng.hex(60);
        let worker = rng.hex(60);
        let placed = inst.placed();
        let machine = placed.map(|m| &machines[m]);
        self.line.clear();
        rows::instance(
            &mut self.line,
            &InstanceRow {
                job: &job.name,
                task: spec.name,
                inst_name: &inst_name,
                worker: if placed.is_some() { &worker } else { "" },
                inst_id: &job.inst_id,
                status: task.instance_status(inst),
                start: placed.map(|_| inst.start),
                end: inst.ended(),
                machine: machine.map_or("", |m| m.name),
            },
        );
        self.instance.row(&self.line)?;
        let Some(m) = machine else { return Ok(()) };
        let elapsed = inst.elapsed();
        let sensor = elapsed >= super::params::SENSOR_MIN_RUNTIME && rng.chance(super::params::P_SENSOR);
        let metric = inst.avg.is_some() && rng.chance(super::params::P_METRIC);
        if sensor {
            let v = sensor_values(spec, job.use_mem, inst, elapsed, rng);
            let dev = if spec.plan_gpu.is_some() && m.kind != CPU {
                format!("/dev/nvidia{}", inst.dev)
            } else {
                String::new()
            };
            self.line.clear();
            rows::sensor(&mut self.line, &job.name, spec.name, &worker, &job.inst_id, m.name, &dev, &v);
            self.sensor.row(&self.line)?;
        }
        if metric {
            let v = metric_values(inst, m, rng);
            self.line.clear();
            rows::machine_metric(&mut self.line, &worker, m.name, inst.start, inst.end, &v);
            self.metric.row(&self.line)?;
        }
        Ok(())
    }
}

/// Seed offset of a task's row stream (names and measured values).
fn row_key(job: u32, which: u8) -> u64 {
    let mut x = (job as u64) << 8 | which as u64;
    x = x.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5851_F42D_4C95_7F2D;
    x ^ (x >> 29)
}

/// A lifetime average of `n` integer-valued samples, as the owners' tools
/// printed it (`140.1451612903226` = 8689 / 62).
fn sampled(v: f64, n: f64) -> f64 {
    (v * n).round() / n
}

/// Sensor values from the instance's usage rates: the same CPU, GPU and
/// network rates the machine integrals add up, sampled over its lifetime.
fn sensor_values(spec: &TaskSpec, use_mem: f64, inst: &Inst, elapsed: i64, rng: &mut Rng) -> SensorValues {
    let n = (elapsed as f64 / 60.0).clamp(1.0, 20_000.0).round();
    let n_io = n + rng.below(4) as f64;
    let cpu = sampled(inst.load.use_cpu, n);
    let mem_mb = (spec.plan_mem as f64 * spec.mem_ratio as f64 * use_mem * rng.lognormal(1.0, 0.15)).max(20.0);
    let avg_mem = sampled(mem_mb, n) / 1024.0;
    let max_mem = (mem_mb * (1.0 + rng.lognormal(0.3, 0.7))).round() / 1024.0;
    let gpu = spec.plan_gpu.map(|g| {
        let n_g = (n / 4.0).max(1.0).round();
        let util = sampled(inst.load.use_gpu, n_g);
        let gmem_mb = (g as f64 / 100.0 * 16_384.0 * rng.lognormal(0.12, 0.9)).clamp(10.0, 80_000.0);
        (util, sampled(gmem_mb, n) / 1024.0, (gmem_mb * (1.0 + rng.lognormal(0.25, 0.6))).round() / 1024.0)
    });
    let read = inst.load.use_read;
    let write = read * rng.lognormal(0.5, 1.0);
    let op = rng.lognormal(8_000.0, 0.8);
    [
        Some(cpu),
        gpu.map(|g| g.0),
        Some(avg_mem),
        Some(max_mem),
        gpu.map(|g| g.1),
        gpu.map(|g| g.2),
        Some(sampled(read, n_io)),
        Some(sampled(write, n_io)),
        Some(sampled(read / op, n_io)),
        Some(sampled(write / op, n_io)),
    ]
}

/// Machine values over the instance's lifetime: time averages of the
/// co-located workers and their usage (plus a little OS background), split
/// into usr / kernel / iowait (iowait ~1/1000 of CPU time, NSDI'22 Fig 8b).
fn metric_values(inst: &Inst, m: &Machine, rng: &mut Rng) -> MetricValues {
    let a = inst.avg.expect("finished instance");
    let busy_cores = a.cpu / 100.0;
    let pct = (100.0 * a.cpu / m.cap_cpu as f64 + rng.lognormal(0.8, 0.5)).min(100.0);
    let iowait = pct * 0.001 * rng.lognormal(1.0, 1.0);
    let usr = (pct - iowait) * rng.uniform(0.74, 0.88);
    let kernel = pct - iowait - usr;
    let gpu = (m.cap_gpu > 0).then(|| 100.0 * a.gpu / m.cap_gpu as f64);
    let load = busy_cores * rng.lognormal(1.0, 0.12) + rng.uniform(0.1, 1.0);
    let net = a.read + rng.lognormal(1.5e6, 0.8);
    [Some(iowait), Some(kernel), Some(usr), gpu, Some(load), Some(net), Some(a.workers), Some(iowait + kernel + usr)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use tracelab_schema::raw::RawCsv;

    /// The columns `ingest::pai` parses as numbers or times, by name (from
    /// the README's column descriptions), so the shapes cannot drift from
    /// the layouts.
    const NUMERIC: &[&str] = &[
        "inst_num",
        "start_time",
        "end_time",
        "plan_cpu",
        "plan_mem",
        "plan_gpu",
        "cpu_usage",
        "gpu_wrk_util",
        "avg_mem",
        "max_mem",
        "avg_gpu_wrk_mem",
        "max_gpu_wrk_mem",
        "read",
        "write",
        "read_count",
        "write_count",
        "machine_cpu_iowait",
        "machine_cpu_kernel",
        "machine_cpu_usr",
        "machine_gpu",
        "machine_load_1",
        "machine_net_receive",
        "machine_num_worker",
        "machine_cpu",
    ];

    fn numeric(table: &RawCsv) -> Vec<usize> {
        (0..table.columns.len()).filter(|&i| NUMERIC.contains(&table.columns[i])).collect()
    }

    #[test]
    fn row_shapes_name_exactly_the_numeric_status_and_time_columns() {
        for (table, shape) in [
            (&raw::JOB, JOB_SHAPE),
            (&raw::TASK, TASK_SHAPE),
            (&raw::INSTANCE, INSTANCE_SHAPE),
            (&raw::SENSOR, SENSOR_SHAPE),
            (&raw::GROUP_TAG, GROUP_TAG_SHAPE),
            (&raw::MACHINE_METRIC, METRIC_SHAPE),
        ] {
            assert_eq!(shape.numeric, numeric(table).as_slice(), "{}", table.file);
            assert_eq!(shape.status, table.index_of("status"), "{}", table.file);
            let span = table.index_of("start_time").zip(table.index_of("end_time"));
            assert_eq!(shape.span, span, "{}", table.file);
        }
    }

    #[test]
    fn lifetime_averages_print_like_the_owners_samples() {
        // README sensor row: cpu_usage 140.1451612903226 = 8689 / 62.
        assert_eq!(sampled(8689.0 / 62.0 + 0.004, 62.0), 140.1451612903226);
    }
}
