//! The owners' per-cluster summary of AcmeTrace (`data/cluster_summary.csv`
//! of InternLM/AcmeTrace): the calibration targets of Seren and Kalos. The
//! columns are Helios' summary's, so the Helios generator's [`Summary`]
//! holds them.

use crate::helios::summary::Summary;
use crate::inventory::ACME_SUMMARY;

/// One cluster's row (`Seren` or `Kalos`).
pub fn cluster(id: &str) -> Summary {
    let mut lines = ACME_SUMMARY.lines();
    let header: Vec<&str> = lines.next().expect("summary header").split(',').collect();
    let row: Vec<&str> = lines.map(|l| l.split(',').collect::<Vec<_>>()).find(|r| r[0] == id).expect("cluster row");
    let get = |name: &str| -> f64 {
        let i = header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("summary column {name}"));
        row[i].parse().expect("number in the summary")
    };
    Summary {
        id: id.to_string(),
        gpus: gpus(id),
        jobs: get("job_num"),
        cpu_jobs: get("cpu_job_num"),
        gpu_jobs: get("gpu_job_num"),
        avg_run: [get("avg_run_time_cpu"), get("avg_run_time_gpu")],
        avg_queue: [get("avg_que_time_cpu"), get("avg_que_time_gpu")],
        avg_gpu_num: get("avg_gpu_num"),
        med_run: [get("med_run_time_cpu"), get("med_run_time_gpu")],
        rates_cpu: [get("complete_rate_cpu"), get("cancel_rate_cpu"), get("fail_rate_cpu")],
        rates_gpu: [get("complete_rate_gpu"), get("cancel_rate_gpu"), get("fail_rate_gpu")],
        gpu_time: [get("complete_gpu_time"), get("cancel_gpu_time"), get("fail_gpu_time")],
    }
}

/// The median queueing delays (CPU, GPU jobs) of a row.
pub fn median_queue(id: &str) -> [f64; 2] {
    let mut lines = ACME_SUMMARY.lines();
    let header: Vec<&str> = lines.next().expect("summary header").split(',').collect();
    let row: Vec<&str> = lines.map(|l| l.split(',').collect::<Vec<_>>()).find(|r| r[0] == id).expect("cluster row");
    let get = |name: &str| row[header.iter().position(|h| *h == name).expect("column")].parse().expect("number");
    [get("med_que_time_cpu"), get("med_que_time_gpu")]
}

/// The clusters' A100 GPUs (NSDI'24 Sec 2: Seren 286 and Kalos 302 nodes of
/// 8 GPUs, 4,704 in all); the summary CSV has no GPU column.
pub fn gpus(id: &str) -> f64 {
    if id == "Seren" {
        2288.0
    } else {
        2416.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_read() {
        let s = cluster("Seren");
        assert_eq!((s.jobs, s.cpu_jobs, s.gpu_jobs), (1_031_550.0, 367_737.0, 663_813.0));
        assert_eq!(s.rates_gpu, [0.497, 0.075, 0.429]);
        let k = cluster("Kalos");
        assert_eq!(k.avg_gpu_num, 26.77);
        assert_eq!(median_queue("Kalos"), [9.0, 17.0]);
    }
}
