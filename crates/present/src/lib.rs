//! The one presentation layer: a neutral table model (named, typed columns
//! with optional units; cells text, integer, float, bool, null, timestamp),
//! the number rules (significant digits for people, 12 significant digits
//! for data) and the writers: terminal table, CSV, JSON, JSONL and
//! Markdown, and the escaping of text for HTML and SVG (`markup`). Each rule lives in one place here, so `query`, `analyze`,
//! `tables`, the report and the simulator print numbers and text the same
//! way (datafusion-cli's `print_format.rs` is the model).
//!
//! It knows nothing of Polars, the store or the analyses: callers convert
//! their results into a [`Table`] and pick a writer. Every writer is a pure
//! function of the table, so output is deterministic.

pub mod csv;
pub mod json;
pub mod markdown;
pub mod markup;
pub mod number;
pub mod table;
pub mod terminal;
pub mod text;

pub use table::{Column, Kind, Table, Value};
