//! Writes one SVG per sample chart to the workspace's `target/plot-gallery/` (to be looked
//! at: `chromium --headless --screenshot` or `rsvg-convert` turns them into
//! PNGs), checking each on the way.

use std::path::PathBuf;

use super::{check, samples};
use crate::render;

#[test]
fn gallery_renders_every_sample_and_writes_it_out() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/plot-gallery");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, chart) in samples::all() {
        let svg = render(&chart).unwrap_or_else(|e| panic!("{name}: {e}"));
        check(&svg, chart.size);
        std::fs::write(dir.join(format!("{name}.svg")), &svg).unwrap();
    }
}
