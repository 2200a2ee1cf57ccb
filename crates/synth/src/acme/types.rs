//! LLM workload types for a cluster's jobs (NSDI'24 Sec 3.2, Fig 3-5):
//! pretraining jobs are few and large and hold most of the GPU time,
//! evaluation jobs are many, small and short yet queue longest, debugging
//! jobs are short. The paper prints its shares only as a treemap image;
//! the counts below are tracelab's reading of it (stated in SOURCE.md and
//! the generator's docs), and the generator ranks GPU jobs by GPU time with
//! noise, so each type's size and duration follow from the published
//! per-cluster distributions rather than from invented ones.

use crate::helios::dist::apportion;
use crate::helios::specs::Spec;
use crate::rng::Rng;

/// GPU-job types, largest typical GPU time first, with their share of a
/// cluster's GPU jobs.
pub fn gpu_mix(cluster: &str) -> &'static [(&'static str, f64)] {
    if cluster == "Seren" {
        &[("Pretrain", 0.011), ("MLLM", 0.03), ("SFT", 0.09), ("Other", 0.2), ("Eval", 0.37), ("Debug", 0.299)]
    } else {
        &[("Pretrain", 0.03), ("SFT", 0.002), ("Other", 0.05), ("Eval", 0.86), ("Debug", 0.058)]
    }
}

/// CPU jobs (data processing and the like) are typed Other, Eval or Debug.
const CPU_MIX: [(&str, f64); 3] = [("Other", 0.6), ("Eval", 0.3), ("Debug", 0.1)];

/// How strongly a type is drawn to long queueing delays (evaluation waits
/// behind pretraining's reservations, NSDI'24 Sec 3.3).
fn queue_pull(kind: &str) -> f64 {
    match kind {
        "Eval" => 1.5,
        "Pretrain" | "SFT" => 0.5,
        "MLLM" => 0.3,
        "Debug" => -0.5,
        _ => 0.0,
    }
}

/// Log GPU time with noise: the ranking key of GPU jobs.
fn size_key(s: &Spec, rng: &mut Rng) -> f64 {
    (s.gpu_time() + 1.0).ln() + 1.2 * rng.normal()
}

/// Each job's type, index-aligned with `specs`; the queueing delays are
/// re-dealt within CPU and within GPU jobs so that evaluation gets the long
/// ones (the delays themselves are unchanged, so the published means and
/// medians hold). With `within_run` a job's delay is at most its run time
/// (Kalos, whose `run` is end - submit and so includes the queueing).
pub fn assign(cluster: &str, specs: &mut [Spec], within_run: bool, rng: &mut Rng) -> Vec<&'static str> {
    let mut kinds = vec![""; specs.len()];
    let gpu: Vec<usize> = (0..specs.len()).filter(|&i| specs[i].gpus > 0).collect();
    let cpu: Vec<usize> = (0..specs.len()).filter(|&i| specs[i].gpus == 0).collect();
    let mut keyed: Vec<(f64, usize)> = gpu.iter().map(|&i| (size_key(&specs[i], rng), i)).collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mix = gpu_mix(cluster);
    let counts = apportion(keyed.len(), &mix.iter().map(|m| m.1).collect::<Vec<_>>());
    let mut next = keyed.iter();
    for ((kind, _), n) in mix.iter().zip(counts) {
        for &(_, i) in next.by_ref().take(n) {
            kinds[i] = kind;
        }
    }
    let cpu_counts = apportion(cpu.len(), &CPU_MIX.map(|m| m.1));
    let mut cpu_kinds: Vec<&'static str> =
        CPU_MIX.iter().zip(cpu_counts).flat_map(|((k, _), n)| std::iter::repeat_n(*k, n)).collect();
    rng.shuffle(&mut cpu_kinds);
    for (&i, k) in cpu.iter().zip(cpu_kinds) {
        kinds[i] = k;
    }
    redeal_queues(specs, &gpu, &kinds, within_run, rng);
    redeal_queues(specs, &cpu, &kinds, within_run, rng);
    kinds
}

/// Gives the longest of `idx`'s queueing delays to the jobs whose type pulls
/// hardest (with noise); with `within_run`, each job the longest delay left
/// that is not above its run time (the shortest left, cut to the run time,
/// when none is).
fn redeal_queues(specs: &mut [Spec], idx: &[usize], kinds: &[&str], within_run: bool, rng: &mut Rng) {
    let mut keyed: Vec<(f64, usize)> = idx.iter().map(|&i| (queue_pull(kinds[i]) + rng.normal(), i)).collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut left: std::collections::BTreeMap<i64, usize> = std::collections::BTreeMap::new();
    for &i in idx {
        *left.entry(specs[i].queue).or_default() += 1;
    }
    for (_, i) in keyed {
        let limit = if within_run { specs[i].run } else { i64::MAX };
        let q = match left.range(..=limit).next_back() {
            Some((&q, _)) => q,
            None => *left.keys().next().expect("one delay per job"),
        };
        let n = left.get_mut(&q).expect("present");
        *n -= 1;
        if *n == 0 {
            left.remove(&q);
        }
        specs[i].queue = q.min(limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(gpus: u32, run: i64, queue: i64) -> Spec {
        Spec { gpus, state: "COMPLETED", run, queue }
    }

    #[test]
    fn pretraining_gets_the_largest_jobs_and_evaluation_the_longest_waits() {
        let mut rng = Rng::new(1);
        let mut specs: Vec<Spec> = (0..4000)
            .map(|i| {
                spec(
                    if i % 100 == 0 {
                        256
                    } else if i % 3 == 0 {
                        0
                    } else {
                        1 + (i % 8) as u32
                    },
                    60 + i,
                    i % 500,
                )
            })
            .collect();
        let before: i64 = specs.iter().map(|s| s.queue).sum();
        let kinds = assign("Seren", &mut specs, false, &mut rng);
        assert_eq!(specs.iter().map(|s| s.queue).sum::<i64>(), before, "queues are only re-dealt");
        let mean = |k: &str, f: &dyn Fn(&Spec) -> f64| {
            let v: Vec<f64> =
                (0..specs.len()).filter(|&i| kinds[i] == k && specs[i].gpus > 0).map(|i| f(&specs[i])).collect();
            v.iter().sum::<f64>() / v.len() as f64
        };
        assert!(mean("Pretrain", &|s| s.gpus as f64) > 5.0 * mean("Eval", &|s| s.gpus as f64));
        assert!(mean("Eval", &|s| s.queue as f64) > mean("Debug", &|s| s.queue as f64));
        let gpu_jobs = specs.iter().filter(|s| s.gpus > 0).count();
        let evals = (0..specs.len()).filter(|&i| kinds[i] == "Eval" && specs[i].gpus > 0).count();
        assert!(evals.abs_diff((0.37 * gpu_jobs as f64).round() as usize) <= 1);
        assert!(kinds.iter().all(|k| !k.is_empty()));
        let mut kalos = specs.clone();
        assign("Kalos", &mut kalos, true, &mut rng);
        assert!(kalos.iter().all(|s| s.queue <= s.run), "within_run keeps every delay inside its run");
    }
}
