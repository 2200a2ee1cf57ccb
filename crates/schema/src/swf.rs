//! The Standard Workload Format (SWF) of the Parallel Workloads Archive,
//! version 2.2 (Feitelson et al., "The Standard Workload Format",
//! cs.huji.ac.il/labs/parallel/workload/swf.html): one job per line, 18
//! whitespace-separated numeric fields, `-1` where a field is unknown or
//! meaningless, and `;` comment lines, the header comments first, as
//! `; Key: value`.
//!
//! This table is the one definition of the fields: `tracelab export --to
//! swf` writes them and a future SWF reader (a fourth trace kind for
//! ingest) parses them from the same place. Layer 0: no I/O here.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_numbered_in_record_order() {
        for (i, f) in FIELDS.iter().enumerate() {
            assert_eq!(f.number as usize, i + 1, "{}", f.name);
        }
    }
}
