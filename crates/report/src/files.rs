//! The report's files: assembling them (figures as SVG, CSV and, when
//! asked, PNG and PDF; the pages), writing a report folder and checking
//! one byte for byte (`--check`). Where files go on disk is the store's
//! business ([`tracelab_store::folder`]); this module only names them.

use std::path::{Path, PathBuf};

use tracelab_schema::error::{Error, Result};
use tracelab_store::folder;

use super::figure::Rendered;
use super::{html, summary, Data, Files, Plan, SpecReport, WriteOptions};

/// Every file of the report.
pub fn assemble(plan: &Plan, data: &Data, reports: &[SpecReport]) -> Result<Files> {
    let version = env!("CARGO_PKG_VERSION");
    let mut files = Files::new();
    for f in reports.iter().flat_map(|r| &r.figures) {
        let (Rendered::Svg(svg), Some(file)) = (&f.rendered, &f.file) else { continue };
        files.insert(PathBuf::from(file), svg.as_bytes().to_vec());
        if let Some((path, text)) = &f.csv {
            files.insert(PathBuf::from(path), text.as_bytes().to_vec());
        }
        let failed = |e: tracelab_render::RenderError| Error::Usage(format!("{file}: {e}"));
        if let (true, Some(png)) = (plan.formats.png, f.sibling("png")) {
            files.insert(png.into(), tracelab_render::png(svg, tracelab_render::PNG_SCALE).map_err(failed)?);
        }
        if let (true, Some(pdf)) = (plan.formats.pdf, f.sibling("pdf")) {
            files.insert(pdf.into(), tracelab_render::pdf(svg).map_err(failed)?);
        }
    }
    let page = html::Page { reports, data, version, stamp: plan.stamp.as_deref(), formats: plan.formats };
    files.insert("index.html".into(), html::index(&page).into_bytes());
    files.insert("summary.md".into(), summary::markdown(reports, data, version).into_bytes());
    files.insert("summary.json".into(), summary::json(reports, data, version).into_bytes());
    Ok(files)
}

/// Publishes the report as the folder `out` (see [`tracelab_store::folder`]):
/// a folder that is not a tracelab report, or holds files tracelab did not
/// write, is refused untouched; otherwise the old report stays whole until
/// the new one is swapped in.
pub fn write(out: &Path, files: &Files, opts: &WriteOptions) -> Result<()> {
    folder::publish(out, files, opts)
}

/// Refuses, before any work, a `--out` that [`write`] would refuse.
pub fn check_out(out: &Path) -> Result<()> {
    folder::check_target(out)
}

/// How `out` differs from `files`: missing, changed and extra files (the
/// folder's marker included).
pub fn check(out: &Path, files: &Files) -> Result<Vec<String>> {
    folder::check(out, files)
}
