//! AcmeTrace rows: submission times, users, job ids and the two files'
//! record layouts. Times are kept as UTC seconds and written with each
//! file's offset (`2023-03-01 00:18:22+08:00`).

use std::fmt::Write;

use crate::helios::specs::Spec;
use crate::pyfmt::push_py_float;
use crate::rng::{Cumulative, Rng};
use tracelab_schema::civil::{hour_weekday, push_naive};
use tracelab_schema::raw::acme::offset_of;

/// Shanghai is UTC+8 all year.
const LOCAL: i64 = 8 * 3600;

/// `n` submission times (ascending) in `window`, following a working day
/// in Shanghai (more in the afternoon, fewer at night and on weekends).
pub fn submit_times(n: usize, window: (i64, i64), rng: &mut Rng) -> Vec<i64> {
    const HOUR: [f64; 24] = [
        0.8, 0.6, 0.45, 0.35, 0.3, 0.3, 0.35, 0.5, 0.75, 1.05, 1.3, 1.35, 1.2, 1.3, 1.45, 1.5, 1.5, 1.45, 1.3, 1.25,
        1.3, 1.3, 1.2, 1.0,
    ];
    const WEEKDAY: [f64; 7] = [1.1, 1.12, 1.12, 1.1, 1.06, 0.75, 0.75];
    let (t0, t1) = window;
    let hours: Vec<i64> = (t0..t1).step_by(3600).collect();
    let mut acc = Vec::with_capacity(hours.len());
    let mut s = 0.0;
    for &t in &hours {
        let (h, wd) = hour_weekday(t + LOCAL);
        s += HOUR[h as usize] * WEEKDAY[wd as usize];
        acc.push(s);
    }
    let mut out: Vec<i64> = (0..n)
        .map(|k| {
            let u = (k as f64 + rng.f64()) / n as f64 * s;
            let h = acc.partition_point(|&c| c <= u).min(hours.len() - 1);
            (hours[h] + rng.below(3600) as i64).min(t1 - 1)
        })
        .collect();
    out.sort_unstable();
    out
}

/// Users `u` + 4 hex digits (README: u5907, uf794), heavy-tailed activity.
pub struct Users {
    names: Vec<String>,
    pick: Cumulative,
}

pub fn users(n: usize, rng: &mut Rng) -> Users {
    let mut names: Vec<String> = Vec::with_capacity(n.max(1));
    while names.len() < n.max(1) {
        let name = format!("u{}", rng.hex(4));
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let weights: Vec<f64> = names.iter().map(|_| rng.pareto(1.0, 1.1).min(1e4)).collect();
    Users { pick: Cumulative::new(&weights), names }
}

impl Users {
    pub fn pick(&self, rng: &mut Rng) -> &str {
        &self.names[self.pick.sample(rng)]
    }
}

/// Job ids in submission order: Seren's Slurm numbers (README: 5778432),
/// Kalos' `dlc` + 13 letters and digits (README: dlctk696s0jbvitv).
pub struct JobIds {
    next: Option<u64>,
}

impl JobIds {
    pub fn new(kalos: bool, rng: &mut Rng) -> JobIds {
        JobIds { next: (!kalos).then(|| 5_700_000 + rng.below(100_000)) }
    }

    pub fn next(&mut self, rng: &mut Rng) -> String {
        const ALNUM: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        match &mut self.next {
            Some(id) => {
                let out = id.to_string();
                *id += 1 + rng.poisson(0.5);
                out
            }
            None => {
                let tail: String = (0..13).map(|_| ALNUM[rng.below(36) as usize] as char).collect();
                format!("dlc{tail}")
            }
        }
    }
}

/// One job to write.
pub struct Job<'a> {
    pub id: String,
    pub user: &'a str,
    pub spec: &'a Spec,
    pub kind: &'a str,
    pub submit: i64,
}

impl Job<'_> {
    /// Submit, start and end; Kalos' drawn run time is end - submit.
    fn times(&self, kalos: bool) -> (i64, i64, i64) {
        let start = self.submit + self.spec.queue;
        let end = if kalos { self.submit + self.spec.run.max(self.spec.queue) } else { start + self.spec.run };
        (self.submit, start, end)
    }

    fn nodes(&self) -> u32 {
        self.spec.gpus.div_ceil(8).max(1)
    }

    /// CPUs: 16 (Seren) or 15 (Kalos) per GPU (README rows: 8 GPUs with 128
    /// CPUs, 64 with 960); CPU jobs 1 to 64.
    fn cpus(&self, per_gpu: u32, rng: &mut Rng) -> u32 {
        if self.spec.gpus > 0 {
            self.spec.gpus * per_gpu
        } else {
            const CPUS: [(u32, f64); 6] = [(1, 0.2), (2, 0.2), (4, 0.25), (8, 0.2), (16, 0.1), (64, 0.05)];
            CPUS[rng.weighted(&CPUS.map(|c| c.1))].0
        }
    }
}

/// `YYYY-MM-DD HH:MM:SS+HH:MM` of UTC seconds in `cluster`'s offset.
fn push_stamp(out: &mut String, utc: i64, cluster: &str) {
    let offset = offset_of(cluster);
    let east = if offset == "+08:00" { LOCAL } else { 0 };
    push_naive(out, utc + east);
    out.push_str(offset);
}

fn push_times(line: &mut String, job: &Job<'_>, cluster: &str) {
    let (submit, start, end) = job.times(cluster == "Kalos");
    for t in [submit, start, end] {
        push_stamp(line, t, cluster);
        line.push(',');
    }
}

/// A `trace_seren.csv` row.
pub fn push_seren(line: &mut String, job: &Job<'_>, rng: &mut Rng) {
    let s = job.spec;
    let cpus = job.cpus(16, rng);
    write!(line, "{},{},{},{},{cpus},{},{},", job.id, job.user, job.nodes(), s.gpus, job.kind, s.state).expect("write");
    push_times(line, job, "Seren");
    write!(line, "{},{},", s.run, s.queue).expect("write");
    push_py_float(line, s.gpu_time());
}

/// A `trace_kalos.csv` row: pod memory, the failure (failed states) or stop
/// (cancelled) time, which is the end time, and Kalos' duration: the drawn
/// run time, end - submit, with the GPU time over it (the README's rows).
pub fn push_kalos(line: &mut String, job: &Job<'_>, rng: &mut Rng) {
    let s = job.spec;
    let cpus = job.cpus(15, rng);
    let per_pod = s.gpus.min(8);
    let (mem, shm) = if s.gpus > 0 { (125 * per_pod, 100.0) } else { (16 * cpus.max(2), 10.0) };
    write!(line, "{},{},{},{},{cpus},{mem},", job.id, job.user, job.nodes(), s.gpus).expect("write");
    push_py_float(line, shm);
    write!(line, ",{},{},", job.kind, s.state).expect("write");
    push_times(line, job, "Kalos");
    let (submit, _, end) = job.times(true);
    if !matches!(s.state, "COMPLETED" | "CANCELLED") {
        push_stamp(line, end, "Kalos");
    }
    line.push(',');
    if s.state == "CANCELLED" {
        push_stamp(line, end, "Kalos");
    }
    let duration = end - submit;
    write!(line, ",{duration},").expect("write");
    push_py_float(line, s.queue as f64);
    line.push(',');
    push_py_float(line, (s.gpus as i64 * duration) as f64);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readme_rows_are_reproduced() {
        // README: 5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00, ... ,117,32,936.0
        let spec = Spec { gpus: 8, state: "FAILED", run: 117, queue: 32 };
        let submit = 1_677_601_102; // 2023-03-01 00:18:22 +08:00
        let job = Job { id: "5778432".into(), user: "u5907", spec: &spec, kind: "Other", submit };
        let mut line = String::new();
        push_seren(&mut line, &job, &mut Rng::new(1));
        assert_eq!(
            line,
            "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0"
        );
        // README (Kalos): dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED, ... ,18,10.0,1152.0
        let spec = Spec { gpus: 64, state: "FAILED", run: 18, queue: 10 };
        let submit = 1_684_321_258; // 2023-05-17 11:00:58 +00:00
        let job = Job { id: "dlctk696s0jbvitv".into(), user: "uf794", spec: &spec, kind: "Other", submit };
        let mut line = String::new();
        push_kalos(&mut line, &job, &mut Rng::new(1));
        assert_eq!(
            line,
            "dlctk696s0jbvitv,uf794,8,64,960,1000,100.0,Other,FAILED,2023-05-17 11:00:58+00:00,2023-05-17 11:01:08+00:00,2023-05-17 11:01:16+00:00,2023-05-17 11:01:16+00:00,,18,10.0,1152.0"
        );
    }
}
