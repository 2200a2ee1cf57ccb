//! The published per-cluster summary of the full Helios trace
//! (HeliosArtifact `helios_cluster_summary.csv`), the calibration targets.

use crate::inventory::HELIOS_SUMMARY;

/// One cluster's row. Times in seconds; rates are fractions in the order
/// complete, cancel, fail; GPU time (GPU-seconds) in the same order.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub id: String,
    pub gpus: f64,
    pub jobs: f64,
    pub cpu_jobs: f64,
    pub gpu_jobs: f64,
    pub avg_run: [f64; 2],
    pub avg_queue: [f64; 2],
    pub avg_gpu_num: f64,
    pub med_run: [f64; 2],
    pub rates_cpu: [f64; 3],
    pub rates_gpu: [f64; 3],
    pub gpu_time: [f64; 3],
}

/// Index of CPU (0) and GPU (1) jobs in the pairs above.
pub const CPU: usize = 0;
pub const GPU: usize = 1;

pub fn cluster(id: &str) -> Summary {
    let mut lines = HELIOS_SUMMARY.lines();
    let header: Vec<&str> = lines.next().expect("summary header").split(',').collect();
    let row: Vec<&str> = lines.map(|l| l.split(',').collect::<Vec<_>>()).find(|r| r[0] == id).expect("cluster row");
    let get = |name: &str| -> f64 {
        let i = header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("summary column {name}"));
        row[i].parse().expect("number in the summary")
    };
    Summary {
        id: id.to_string(),
        gpus: get("gpu_num"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn venus_row_is_read() {
        let v = cluster("Venus");
        assert_eq!(v.jobs, 246_708.0);
        assert_eq!(v.cpu_jobs + v.gpu_jobs, v.jobs);
        assert_eq!(v.med_run, [21.0, 204.0]);
        assert_eq!(v.rates_gpu, [0.526, 0.272, 0.202]);
        assert_eq!(cluster("Saturn").gpus, 2080.0);
    }
}
