//! Renders SVG files to PNG beside them, for looking at figures:
//! `cargo run -p tracelab-render --example svg2png -- a.svg b.svg ...`.

// An example's job is to print its results.
#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

fn main() {
    for path in std::env::args().skip(1) {
        let svg = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let png = tracelab_render::png(&svg, tracelab_render::PNG_SCALE).unwrap_or_else(|e| panic!("{path}: {e}"));
        let out = std::path::Path::new(&path).with_extension("png");
        std::fs::write(&out, png).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
        eprintln!("{}", out.display());
    }
}
