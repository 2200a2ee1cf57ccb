//! The marker `tracelab synth` leaves in every trace folder it writes
//! (`SYNTHETIC.json`: generator, version, trace, scale, seed, corruption,
//! planted effects, and which files it copied verbatim from the owners'
//! public data), so that anything made from the folder can say it is
//! synthetic. Ingest lists the marker as an input of its trace and copies
//! it into the manifest's notes (one line starting with [`NOTE_PREFIX`]);
//! the report reads it back from there.
//!
//! Only the format lives here (synth writes it, ingest checks it, the report
//! reads it): the marker is read from a trace folder, so [`Marker::parse`]
//! treats it as hostile and refuses anything but the documented fields.

use serde_json::{json, Map, Value};

use crate::Trace;

/// The marker's file name, in the trace folder beside the trace's files.
pub const MARKER_FILE: &str = "SYNTHETIC.json";
/// The generator every marker names.
pub const GENERATOR: &str = "tracelab synth";
/// How a manifest note carrying a marker starts.
pub const NOTE_PREFIX: &str = "synthetic: ";
/// Markers are small; a larger file of this name is not one.
pub const MAX_BYTES: u64 = 64 * 1024;

/// What one `tracelab synth` run made of one trace.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub trace: Trace,
    /// The tracelab version that generated the files.
    pub version: String,
    /// 1.0 is the size of the real trace.
    pub scale: f64,
    pub seed: u64,
    /// Fraction of rows corrupted on purpose (`--corrupt`), if any.
    pub corrupt: Option<f64>,
    /// The planted effects that were on (e.g. `cpu-contention`).
    pub effects: Vec<String>,
    /// Files written verbatim from the owners' public data (relative to the
    /// trace folder): the real part of a synthetic folder.
    pub real_files: Vec<String>,
}

impl Marker {
    /// The marker file's text: pretty JSON with a fixed key order.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(&self.value()).unwrap_or_default() + "\n"
    }

    /// The manifest note carrying this marker (one line).
    pub fn note(&self) -> String {
        format!("{NOTE_PREFIX}{}", self.value())
    }

    /// The marker a manifest note carries, if it is one.
    pub fn from_note(note: &str) -> Option<Marker> {
        Marker::parse(note.strip_prefix(NOTE_PREFIX)?).ok()
    }

    fn value(&self) -> Value {
        json!({
            "generator": GENERATOR,
            "tracelab_version": self.version,
            "trace": self.trace.name(),
            "scale": self.scale,
            "seed": self.seed,
            "corrupt": self.corrupt,
            "effects": self.effects,
            "real_files": self.real_files,
        })
    }

    /// Reads a marker; the error says what was expected.
    pub fn parse(text: &str) -> Result<Marker, String> {
        let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e})"))?;
        let m = v.as_object().ok_or("expected a JSON object")?;
        if let Some(k) = m.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(format!("unknown field `{k}` (expected {})", KEYS.join(", ")));
        }
        if m.get("generator").and_then(Value::as_str) != Some(GENERATOR) {
            return Err(format!("`generator` must be \"{GENERATOR}\""));
        }
        let trace = text_field(m, "trace")?;
        let trace = Trace::from_name(&trace)
            .ok_or(format!("`trace` {trace:?} is not a trace tracelab knows (pai, philly, helios, acme, spot)"))?;
        let scale = m.get("scale").and_then(Value::as_f64).filter(|s| *s > 0.0 && s.is_finite());
        let corrupt = match m.get("corrupt") {
            None | Some(Value::Null) => None,
            Some(c) => Some(c.as_f64().filter(|c| (0.0..=1.0).contains(c)).ok_or("`corrupt` must be in [0, 1]")?),
        };
        Ok(Marker {
            trace,
            version: text_field(m, "tracelab_version")?,
            scale: scale.ok_or("`scale` must be a positive number")?,
            seed: m.get("seed").and_then(Value::as_u64).ok_or("`seed` must be a whole number >= 0")?,
            corrupt,
            effects: text_list(m, "effects")?,
            real_files: text_list(m, "real_files")?,
        })
    }
}

const KEYS: [&str; 8] = ["generator", "tracelab_version", "trace", "scale", "seed", "corrupt", "effects", "real_files"];

fn text_field(m: &Map<String, Value>, key: &str) -> Result<String, String> {
    m.get(key).and_then(Value::as_str).map(str::to_string).ok_or(format!("`{key}` must be a string"))
}

fn text_list(m: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    let list = m.get(key).and_then(Value::as_array).ok_or(format!("`{key}` must be a list of strings"))?;
    list.iter().map(|v| v.as_str().map(str::to_string).ok_or(format!("`{key}` must be a list of strings"))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker() -> Marker {
        Marker {
            trace: Trace::Pai,
            version: "0.1.0".into(),
            scale: 0.005,
            seed: 7,
            corrupt: None,
            effects: vec!["cpu-contention".into()],
            real_files: vec!["pai_machine_spec.csv".into()],
        }
    }

    #[test]
    fn a_marker_round_trips_through_its_file_and_its_note() {
        let m = marker();
        assert_eq!(Marker::parse(&m.to_json()), Ok(m.clone()));
        let note = m.note();
        assert!(note.starts_with("synthetic: {") && note.contains("\"seed\":7") && !note.contains('\n'), "{note}");
        assert_eq!(Marker::from_note(&note), Some(m));
        assert_eq!(Marker::from_note("philly/x skipped"), None);
    }

    #[test]
    fn anything_but_the_documented_fields_is_refused() {
        let text = marker().to_json();
        let bad = |from: &str, to: &str| Marker::parse(&text.replace(from, to)).unwrap_err();
        assert!(bad("\"seed\": 7", "\"seed\": -1").contains("`seed`"));
        assert!(bad("\"scale\": 0.005", "\"scale\": 0").contains("`scale`"));
        assert!(bad("\"trace\": \"pai\"", "\"trace\": \"x\"").contains("`trace`"));
        assert!(bad("tracelab synth", "someone").contains("`generator`"));
        assert!(bad("\"seed\"", "\"sneed\"").contains("unknown field `sneed`"));
        assert!(Marker::parse("[1]").unwrap_err().contains("object"));
    }
}
