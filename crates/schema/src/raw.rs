//! The official raw layouts, exactly as the trace owners publish them: file
//! names, archive names, header rows and column order. Ingest parses these and
//! synth writes them; neither may spell a raw column name anywhere else.
//!
//! Sources: the PAI `.header` files and README (alibaba/clusterdata
//! cluster-trace-gpu-v2020), the Philly README (msr-fiddle/philly-traces), the
//! Helios README (S-Lab-System-Group/HeliosData), the AcmeTrace README
//! (InternLM/AcmeTrace) and the spot-GPU README and node file
//! (alibaba/clusterdata cluster-trace-v2026-spot-gpu). The real files kept in
//! `data-samples/` are the byte-level reference.

/// A raw CSV file layout.
#[derive(Debug)]
pub struct RawCsv {
    /// File name as downloaded (PAI: the `.csv` inside the `.tar.gz`).
    pub file: &'static str,
    /// Column names in file order.
    pub columns: &'static [&'static str],
    /// Whether the file starts with a header row.
    pub has_header: bool,
}

impl RawCsv {
    /// The header line (without newline) as the owners write it.
    pub fn header_line(&self) -> String {
        self.columns.join(",")
    }

    /// File stem, e.g. `pai_job_table`.
    pub fn stem(&self) -> &'static str {
        self.file.strip_suffix(".csv").unwrap_or(self.file)
    }

    pub fn index_of(&self, column: &str) -> Option<usize> {
        self.columns.iter().position(|c| *c == column)
    }
}

/// Alibaba PAI cluster-trace-gpu-v2020: seven headerless CSVs, each
/// downloaded as `<stem>.tar.gz` holding `<stem>.csv`, with a one-line
/// `<stem>.header` beside it.
pub mod pai {
    use super::RawCsv;

    pub const JOB: RawCsv = RawCsv {
        file: "pai_job_table.csv",
        columns: &["job_name", "inst_id", "user", "status", "start_time", "end_time"],
        has_header: false,
    };
    pub const TASK: RawCsv = RawCsv {
        file: "pai_task_table.csv",
        columns: &[
            "job_name",
            "task_name",
            "inst_num",
            "status",
            "start_time",
            "end_time",
            "plan_cpu",
            "plan_mem",
            "plan_gpu",
            "gpu_type",
        ],
        has_header: false,
    };
    pub const INSTANCE: RawCsv = RawCsv {
        file: "pai_instance_table.csv",
        columns: &[
            "job_name",
            "task_name",
            "inst_name",
            "worker_name",
            "inst_id",
            "status",
            "start_time",
            "end_time",
            "machine",
        ],
        has_header: false,
    };
    pub const SENSOR: RawCsv = RawCsv {
        file: "pai_sensor_table.csv",
        columns: &[
            "job_name",
            "task_name",
            "worker_name",
            "inst_id",
            "machine",
            "gpu_name",
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
        ],
        has_header: false,
    };
    pub const GROUP_TAG: RawCsv = RawCsv {
        file: "pai_group_tag_table.csv",
        columns: &["inst_id", "user", "gpu_type_spec", "group", "workload"],
        has_header: false,
    };
    pub const MACHINE_SPEC: RawCsv = RawCsv {
        file: "pai_machine_spec.csv",
        columns: &["machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"],
        has_header: false,
    };
    pub const MACHINE_METRIC: RawCsv = RawCsv {
        file: "pai_machine_metric.csv",
        columns: &[
            "worker_name",
            "machine",
            "start_time",
            "end_time",
            "machine_cpu_iowait",
            "machine_cpu_kernel",
            "machine_cpu_usr",
            "machine_gpu",
            "machine_load_1",
            "machine_net_receive",
            "machine_num_worker",
            "machine_cpu",
        ],
        has_header: false,
    };

    /// All seven tables in the order of the owners' README.
    pub const TABLES: [&RawCsv; 7] = [&JOB, &TASK, &INSTANCE, &SENSOR, &GROUP_TAG, &MACHINE_SPEC, &MACHINE_METRIC];

    /// `philly_runtime.csv`, shipped in the PAI repository's analysis
    /// folder: a `runtime` header, then one Philly job runtime (s) a line.
    pub const PHILLY_RUNTIME: RawCsv = RawCsv { file: "philly_runtime.csv", columns: &["runtime"], has_header: true };

    /// The `.header` file that accompanies a table.
    pub fn header_file(table: &RawCsv) -> String {
        format!("{}.header", table.stem())
    }

    /// The `.tar.gz` a table is downloaded as.
    pub fn archive_file(table: &RawCsv) -> String {
        format!("{}.tar.gz", table.stem())
    }

    /// Task and job `status` values documented by the owners' README.
    pub const JOB_STATUSES: &[&str] = &["Running", "Terminated", "Failed", "Waiting"];
    /// Task and instance statuses: the job statuses plus the intermediate
    /// scheduler states instance rows can carry.
    pub const INSTANCE_STATUSES: &[&str] = &["Running", "Terminated", "Failed", "Waiting", "Interrupted", "Ready"];
    /// GPU types of the machine table and of `task.gpu_type`.
    pub const GPU_TYPES: &[&str] = &["MISC", "P100", "T4", "V100", "V100M32", "CPU"];
}

/// Microsoft Philly: five files without extension, shipped together as
/// `trace-data.tar.gz`.
pub mod philly {
    use super::RawCsv;

    /// The JSON job log: a list of jobs with `status`, `vc`, `jobid`,
    /// `attempts[{start_time,end_time,detail[{ip,gpus[]}]}]`,
    /// `submitted_time`, `user`.
    pub const JOB_LOG: &str = "cluster_job_log";
    /// The archive the five files are downloaded in.
    pub const ARCHIVE: &str = "trace-data.tar.gz";

    /// Per-minute GPU utilization. Data rows end with a trailing comma (one
    /// empty field more than the header); `NA` marks an offline GPU.
    pub const GPU_UTIL: RawCsv = RawCsv {
        file: "cluster_gpu_util",
        columns: &[
            "time",
            "machineId",
            "gpu0_util",
            "gpu1_util",
            "gpu2_util",
            "gpu3_util",
            "gpu4_util",
            "gpu5_util",
            "gpu6_util",
            "gpu7_util",
        ],
        has_header: true,
    };
    pub const CPU_UTIL: RawCsv =
        RawCsv { file: "cluster_cpu_util", columns: &["time", "machine_id", "cpu_util"], has_header: true };
    pub const MEM_UTIL: RawCsv = RawCsv {
        file: "cluster_mem_util",
        columns: &["time", "machine_id", "mem_total", "mem_free"],
        has_header: true,
    };
    /// `m31,8, 24GB`: note the blank after each comma, header included.
    pub const MACHINE_LIST: RawCsv = RawCsv {
        file: "cluster_machine_list",
        columns: &["machineId", " number of GPUs", " single GPU mem"],
        has_header: true,
    };

    pub const CSV_FILES: [&RawCsv; 4] = [&GPU_UTIL, &CPU_UTIL, &MEM_UTIL, &MACHINE_LIST];

    /// Job `status` values.
    pub const STATUSES: &[&str] = &["Pass", "Killed", "Failed"];
    /// GPUs per machine in the utilization file's layout.
    pub const GPU_SLOTS: usize = 8;
    /// Utilization time stamps: `2017-10-03 00:08:00 PDT`.
    pub const UTIL_TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";
    /// Job-log time stamps: naive local times, `2017-10-07 01:12:09`.
    pub const JOB_TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";
}

/// SenseTime Helios: one folder per cluster with `cluster_log.csv` and
/// `cluster_gpu_number.csv`, shipped as `data.zip`.
pub mod helios {
    use super::RawCsv;

    pub const CLUSTERS: [&str; 4] = ["Earth", "Saturn", "Uranus", "Venus"];
    pub const ARCHIVE: &str = "data.zip";

    pub const CLUSTER_LOG: RawCsv = RawCsv {
        file: "cluster_log.csv",
        columns: &[
            "job_id",
            "user",
            "vc",
            "gpu_num",
            "cpu_num",
            "node_num",
            "state",
            "submit_time",
            "start_time",
            "end_time",
            "duration",
            "queue",
        ],
        has_header: true,
    };
    /// `date,<vc>...,total`: the VC columns differ per cluster, so only the
    /// first and last column are fixed.
    pub const GPU_NUMBER_FILE: &str = "cluster_gpu_number.csv";
    pub const GPU_NUMBER_FIRST: &str = "date";
    pub const GPU_NUMBER_LAST: &str = "total";

    /// Final job states. TIMEOUT and NODE_FAIL count as failed upstream
    /// (`trace_parser.py`); one SUSPENDED row exists in Uranus.
    pub const STATES: &[&str] = &["COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "SUSPENDED"];
    pub const TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";
}

/// Shanghai AI Lab AcmeTrace (InternLM/AcmeTrace `data/job_trace/`): one CSV
/// with a header row per cluster. Kalos adds pod memory and the failure and
/// stop times. Column order as the README's tables; ingest maps the header
/// by name, so a file with the same columns in another order reads too.
pub mod acme {
    use super::RawCsv;

    pub const SEREN: RawCsv = RawCsv {
        file: "trace_seren.csv",
        columns: &[
            "job_id",
            "user",
            "node_num",
            "gpu_num",
            "cpu_num",
            "type",
            "state",
            "submit_time",
            "start_time",
            "end_time",
            "duration",
            "queue",
            "gpu_time",
        ],
        has_header: true,
    };
    pub const KALOS: RawCsv = RawCsv {
        file: "trace_kalos.csv",
        columns: &[
            "job_id",
            "user",
            "node_num",
            "gpu_num",
            "cpu_num",
            "mem_per_pod_GB",
            "shared_mem_per_pod",
            "type",
            "state",
            "submit_time",
            "start_time",
            "end_time",
            "fail_time",
            "stop_time",
            "duration",
            "queue",
            "gpu_time",
        ],
        has_header: true,
    };

    /// (cluster, file) in the owners' order (the summary CSV's rows).
    pub const CLUSTERS: [(&str, &RawCsv); 2] = [("Seren", &SEREN), ("Kalos", &KALOS)];

    /// The UTC offset each cluster's stamps carry in the released files
    /// (README examples); ingest honours whatever offset a value has, synth
    /// writes these.
    pub fn offset_of(cluster: &str) -> &'static str {
        if cluster == "Seren" {
            "+08:00"
        } else {
            "+00:00"
        }
    }

    /// Final states (README note 1): TIMEOUT and NODE_FAIL are rare and
    /// regarded as failed by the owners.
    pub const STATES: &[&str] = &["COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL"];
    /// Workload types. The files write `Eval` (the owners' notebook filters
    /// `type == "Eval"`); `Evaluation` is the README's and paper's word.
    pub const TYPES: &[&str] = &["Pretrain", "SFT", "Eval", "Evaluation", "MLLM", "Debug", "Other"];
}

/// Alibaba cluster-trace-v2026-spot-gpu: two CSVs with a header row, as the
/// repository holds them (`job_info_df.csv`, `node_info_df.csv`). Ingest
/// maps the header by name (the README's tables list the node columns in
/// another order than the file).
pub mod spot {
    use super::RawCsv;

    pub const JOBS: RawCsv = RawCsv {
        file: "job_info_df.csv",
        columns: &[
            "job_name",
            "organization",
            "gpu_model",
            "cpu_request",
            "gpu_request",
            "worker_num",
            "submit_time",
            "duration",
            "job_type",
        ],
        has_header: true,
    };
    pub const NODES: RawCsv = RawCsv {
        file: "node_info_df.csv",
        columns: &["gpu_model", "gpu_capacity_num", "cpu_num", "node_name"],
        has_header: true,
    };

    /// `job_type`: high priority, or Spot (preemptible).
    pub const JOB_TYPES: &[&str] = &["HP", "Spot"];
}
