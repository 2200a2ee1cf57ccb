//! The Standard Workload Format (SWF) of the Parallel Workloads Archive,
//! version 2.2 (Feitelson et al., "The Standard Workload Format",
//! cs.huji.ac.il/labs/parallel/workload/swf.html): one job per line, 18
//! whitespace-separated numeric fields, `-1` where a field is unknown or
//! meaningless, and `;` comment lines, the header comments first, as
//! `; Key: value`.
//!
//! This table is the one definition of the fields: `tracelab export --to
//! swf` writes them and `tracelab ingest` (SWF is its fourth trace kind)
//! parses them from the same place. The canonical tables of an ingested SWF
//! log (`<store>/swf/*.parquet`) are declared here too, one column per
//! field in record order. Layer 0: no I/O here.
//!
//! Time: submit times are seconds after the header's `UnixStartTime`, an
//! instant in Unix time (UTC); `TimeZoneString` only says how the owners
//! turned it into local wall-clock time, so the UTC timestamps do not depend
//! on it. It is kept in the `header` table.

use super::ColType::{Str, Timestamp, F64, I64};
use super::{col, opt, Table, Trace, REJECTS_COLUMNS};

/// One data field of an SWF record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// 1-based position in the record.
    pub number: u8,
    /// Name as the format document gives it.
    pub name: &'static str,
    /// Unit of the value; empty for counters, codes and ids.
    pub unit: &'static str,
    /// What the value means (paraphrased from the format document).
    pub meaning: &'static str,
}

const fn field(number: u8, name: &'static str, unit: &'static str, meaning: &'static str) -> Field {
    Field { number, name, unit, meaning }
}

/// The format version written in the `; Version:` header.
pub const VERSION: &str = "2.2";

/// The value of a field that is unknown or does not apply.
pub const UNKNOWN: i64 = -1;

/// The 18 fields, in record order (`FIELDS[i].number == i + 1`).
pub const FIELDS: [Field; 18] = [
    field(1, "Job Number", "", "Counter starting at 1; records are sorted by submit time and numbered in that order."),
    field(2, "Submit Time", "s", "Submission, seconds after the log's start (UnixStartTime)."),
    field(3, "Wait Time", "s", "Start minus submission, as the log recorded it."),
    field(4, "Run Time", "s", "Wall-clock run time (end minus start)."),
    field(5, "Number of Allocated Processors", "processors", "Processors the job ran on."),
    field(6, "Average CPU Time Used", "s", "User plus system CPU time, averaged over the processors."),
    field(7, "Used Memory", "KB", "Memory used, averaged over the processors."),
    field(8, "Requested Number of Processors", "processors", "Processors the job asked for."),
    field(9, "Requested Time", "s", "The user's run-time estimate (or limit)."),
    field(10, "Requested Memory", "KB", "Memory asked for, per processor."),
    field(11, "Status", "", "1 completed, 0 failed, 5 cancelled (2, 3, 4 for parts of checkpointed jobs)."),
    field(12, "User ID", "", "User number, 1 to the number of users."),
    field(13, "Group ID", "", "Group number, 1 to the number of groups."),
    field(14, "Executable (Application) Number", "", "Application number, 1 to the number of applications."),
    field(15, "Queue Number", "", "Queue number, 1 to the number of queues (header `Queue:` lines name them)."),
    field(16, "Partition Number", "", "Partition number, 1 to the number of partitions (header `Partition:` lines)."),
    field(17, "Preceding Job Number", "", "A job that must end before this one is submitted."),
    field(18, "Think Time from Preceding Job", "s", "Time between the preceding job's end and this submission."),
];

/// Status codes of field 11 for whole-job records.
pub mod status {
    pub const FAILED: i64 = 0;
    pub const COMPLETED: i64 = 1;
    pub const CANCELLED: i64 = 5;
    /// Partial executions of a checkpointed or swapped job: 2 = to be
    /// continued, 3 = the last part, completed, 4 = the last part, failed.
    /// Such records follow the job's summary line under the same job number.
    pub const PARTIAL: [i64; 3] = [2, 3, 4];
    /// Every code the format defines (with [`super::UNKNOWN`]).
    pub const CODES: [i64; 7] = [super::UNKNOWN, FAILED, COMPLETED, 2, 3, 4, CANCELLED];
    /// The codes as the unified table's `status_raw` spells them.
    pub const RAW: [&str; 7] = ["-1", "0", "1", "2", "3", "4", "5"];
}

/// File names that are SWF logs: `<stem>.swf`, or gzip-compressed as the
/// archive ships them, `<stem>.swf.gz`.
pub const EXTENSIONS: [&str; 2] = [".swf.gz", ".swf"];

/// The stem of an SWF file name (the log's `cluster` in the store), or
/// `None` when the name is not an SWF log's.
pub fn stem(file_name: &str) -> Option<&str> {
    let stem = EXTENSIONS.iter().find_map(|ext| file_name.strip_suffix(ext))?;
    (!stem.is_empty()).then_some(stem)
}

/// The header keys of version 2.2, in the order the format document lists
/// them; `TimeZone` is deprecated (replaced by `TimeZoneString`); `Queue`,
/// `Partition` and `Note` may repeat.
pub const HEADER_KEYS: [&str; 26] = [
    "Version",
    "Computer",
    "Installation",
    "Acknowledge",
    "Information",
    "Conversion",
    "MaxJobs",
    "MaxRecords",
    "Preemption",
    "UnixStartTime",
    "TimeZone",
    "TimeZoneString",
    "StartTime",
    "EndTime",
    "MaxNodes",
    "MaxProcs",
    "MaxRuntime",
    "MaxMemory",
    "AllowOveruse",
    "MaxQueues",
    "Queues",
    "Queue",
    "MaxPartitions",
    "Partitions",
    "Partition",
    "Note",
];

const T: Option<Trace> = Some(Trace::Swf);

pub static JOBS: Table = Table {
    trace: T,
    name: "jobs",
    doc: "One row per data record of every SWF log (`<stem>.swf` or `<stem>.swf.gz`): the 18 fields in record order, `-1` (unknown) as null, plus UTC timestamps derived from the header's UnixStartTime. A checkpointed job's partial-execution records (status 2, 3, 4) follow its summary record under the same job number, with `part` 1, 2, ...",
    key: &["cluster", "job_number", "part"],
    columns: &[
        col("cluster", Str, "", "The log's file stem (`SDSC-SP2-1998-4.2-cln` for `SDSC-SP2-1998-4.2-cln.swf.gz`)."),
        col("job_number", I64, "", "Field 1, Job Number."),
        col("part", I64, "", "0 for a job's summary record; 1, 2, ... for its partial-execution records (status 2, 3, 4), in file order."),
        opt("submit_s", I64, "s", "Field 2, Submit Time: seconds after UnixStartTime."),
        opt("wait_s", I64, "s", "Field 3, Wait Time (start - submit)."),
        opt("run_s", I64, "s", "Field 4, Run Time (end - start, wall clock)."),
        opt("allocated_procs", I64, "processors", "Field 5, Number of Allocated Processors."),
        opt("avg_cpu_time_s", F64, "s", "Field 6, Average CPU Time Used (user + system, averaged over processors); some logs write fractions."),
        opt("used_memory_kb", F64, "KB", "Field 7, Used Memory, averaged over processors; some logs write fractions."),
        opt("requested_procs", I64, "processors", "Field 8, Requested Number of Processors."),
        opt("requested_time_s", I64, "s", "Field 9, Requested Time (the user's run-time estimate or limit)."),
        opt("requested_memory_kb", I64, "KB", "Field 10, Requested Memory, per processor."),
        opt("status", I64, "", "Field 11, Status: 1 completed, 0 failed, 5 cancelled; 2, 3, 4 partial executions (to be continued, last completed, last failed)."),
        opt("user_id", I64, "", "Field 12, User ID."),
        opt("group_id", I64, "", "Field 13, Group ID."),
        opt("executable_id", I64, "", "Field 14, Executable (Application) Number."),
        opt("queue_id", I64, "", "Field 15, Queue Number."),
        opt("partition_id", I64, "", "Field 16, Partition Number."),
        opt("preceding_job", I64, "", "Field 17, Preceding Job Number."),
        opt("think_time_s", I64, "s", "Field 18, Think Time from Preceding Job."),
        opt("submit_time", Timestamp, "", "UnixStartTime + submit_s (UTC); UnixStartTime 0 when the header lacks it (a note says so)."),
        opt("start_time", Timestamp, "", "submit_time + wait_s."),
        opt("end_time", Timestamp, "", "start_time + run_s."),
    ],
};

pub static HEADER: Table = Table {
    trace: T,
    name: "header",
    doc: "The `;` comment lines of every SWF log (the header and any later comment), `; Key: value` split into key and value.",
    key: &["cluster", "line"],
    columns: &[
        col("cluster", Str, "", "The log's file stem."),
        col("line", I64, "", "1-based line of the comment in its file."),
        opt("key", Str, "", "A header key of the format (Version, Computer, UnixStartTime, TimeZoneString, MaxProcs, Note, ...); null for a free-text comment."),
        col("value", Str, "", "The value after `Key:`, or the whole comment text after `;`, trimmed."),
    ],
};

pub static REJECTS: Table = Table {
    trace: T,
    name: "rejects",
    doc: "Input records that could not be ingested, with file, line, field and reason.",
    key: &[],
    columns: REJECTS_COLUMNS,
};

pub static TABLES: &[&Table] = &[&JOBS, &HEADER, &REJECTS];

/// The header key of a comment's text (after the `;`), with its value:
/// `Computer: IBM SP2` -> (Computer, IBM SP2). Only the format's keys count;
/// anything else is a free-text comment.
pub fn header_entry(comment: &str) -> (Option<&'static str>, &str) {
    let text = comment.trim();
    if let Some((key, value)) = text.split_once(':') {
        if let Some(k) = HEADER_KEYS.iter().find(|k| **k == key.trim()) {
            return (Some(k), value.trim());
        }
    }
    (None, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_numbered_in_record_order() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert_eq!(f.number as usize, i + 1, "{}", f.name);
        }
    }

    #[test]
    fn the_jobs_table_has_a_column_per_field_in_record_order() {
        // cluster, job_number, part, then fields 2..18, then 3 timestamps.
        assert_eq!(JOBS.columns.len(), 3 + 17 + 3);
        for (i, c) in JOBS.columns[3..20].iter().enumerate() {
            assert!(c.doc.starts_with(&format!("Field {}, {}", i + 2, FIELDS[i + 1].name)), "{}", c.name);
        }
    }

    #[test]
    fn stems_and_header_entries() {
        assert_eq!(stem("LANL-CM5-1994-4.1-cln.swf.gz"), Some("LANL-CM5-1994-4.1-cln"));
        assert_eq!(stem("a.swf"), Some("a"));
        assert_eq!(stem(".swf"), None);
        assert_eq!(stem("a.swf.zip"), None);
        assert_eq!(header_entry(" Computer: IBM SP2 "), (Some("Computer"), "IBM SP2"));
        assert_eq!(header_entry(" MaxProcs:128"), (Some("MaxProcs"), "128"));
        assert_eq!(header_entry(" jobs cleaned: see note"), (None, "jobs cleaned: see note"));
    }
}
