//! The `notes` part every seed.* analysis ends with: one row per trace a
//! view could not measure, and why (a trace not in the store, or without
//! the data), so a report over any store renders instead of failing.

use crate::output::ResultTable;
use tracelab_schema::Trace;

/// The rows of the `notes` table.
#[derive(Default)]
pub struct Notes(Vec<(String, String)>);

impl Notes {
    pub fn add(&mut self, trace: &str, note: impl Into<String>) {
        self.0.push((trace.to_string(), note.into()));
    }

    /// A note for a selected trace that is not in the store.
    pub fn missing(&mut self, trace: Trace) {
        self.add(trace.name(), "not in the store");
    }

    pub fn table(&self) -> ResultTable {
        let mut t = ResultTable::new(&["trace", "note"]);
        for (trace, note) in &self.0 {
            t.push(vec![trace.as_str().into(), note.as_str().into()]);
        }
        t
    }
}
