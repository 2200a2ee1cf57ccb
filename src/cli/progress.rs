//! Progress on stderr for the long steps, drawn only when stderr is a
//! terminal (so pipes, logs and tests see none): the PAI derived-frame
//! build inside `analyze` (about 20 s at full scale), `synth`, and the
//! ingest inside `report` (its byte bars are `ingest`'s).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// Whether to draw progress at all.
pub fn enabled(quiet: bool) -> bool {
    !quiet && std::io::stderr().is_terminal()
}

/// A spinner with the elapsed time and `message`, ticking on its own;
/// `None` when progress is off. Cleared when dropped.
pub fn spinner(message: &str, quiet: bool) -> Option<Spinner> {
    if !enabled(quiet) {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    bar.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("static template"));
    bar.set_message(message.to_string());
    bar.enable_steady_tick(Duration::from_millis(120));
    Some(Spinner(bar))
}

/// A running spinner.
pub struct Spinner(ProgressBar);

impl Spinner {
    pub fn set(&self, message: &str) {
        self.0.set_message(message.to_string());
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}

/// Draws the PAI derived-frame build's steps (`analysis::pai::derived`).
pub fn derived_frames() {
    if !enabled(false) {
        return;
    }
    let current: Mutex<Option<Spinner>> = Mutex::new(None);
    tracelab_analysis::on_pai_derived_progress(move |step| {
        let mut current = current.lock().expect("progress");
        match (step, current.as_ref()) {
            (Some(s), Some(spinner)) => spinner.set(s),
            (Some(s), None) => *current = spinner(s, false),
            (None, _) => *current = None,
        }
    });
}
