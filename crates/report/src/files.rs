//! The report's files: assembling them (figures as SVG, CSV and, when
//! asked, PNG and PDF; the pages), writing a report folder (replacing what
//! a previous report left, never an unrelated folder) and checking one byte
//! for byte (`--check`).

use std::path::{Path, PathBuf};

use tracelab_schema::error::{Error, IoContext, Result};

use super::figure::Rendered;
use super::{html, summary, Data, Files, Plan, SpecReport};

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

/// Replaces the report folder's contents with `files`. Refuses a non-empty
/// folder that is not a tracelab report (no `summary.json`), so a typo in
/// `--out` cannot wipe unrelated files.
pub fn write(out: &Path, files: &Files) -> Result<()> {
    if out.is_dir() && !out.join("summary.json").is_file() && std::fs::read_dir(out).at(out)?.next().is_some() {
        return Err(Error::Usage(format!(
            "{}: not empty and not a tracelab report (no summary.json); choose another --out",
            out.display()
        )));
    }
    for stale in existing(out)?.into_iter().filter(|p| !files.contains_key(p)) {
        std::fs::remove_file(out.join(&stale)).at(out.join(&stale))?;
    }
    for (rel, bytes) in files {
        let path = out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).at(dir)?;
        }
        if std::fs::read(&path).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::write(&path, bytes).at(&path)?;
        }
    }
    Ok(())
}

/// Files under `out`, relative, sorted (none when it does not exist).
fn existing(out: &Path) -> Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut dirs = vec![out.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for e in entries {
            let path = e.at(&dir)?.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Ok(rel) = path.strip_prefix(out) {
                found.push(rel.to_path_buf());
            }
        }
    }
    found.sort();
    Ok(found)
}

/// How `out` differs from `files`: missing, changed and extra files.
pub fn check(out: &Path, files: &Files) -> Result<Vec<String>> {
    let mut diffs = Vec::new();
    for (rel, bytes) in files {
        match std::fs::read(out.join(rel)) {
            Err(_) => diffs.push(format!("missing: {}", rel.display())),
            Ok(b) if b != *bytes => diffs.push(format!("differs: {}", rel.display())),
            Ok(_) => {}
        }
    }
    for extra in existing(out)?.into_iter().filter(|p| !files.contains_key(p)) {
        diffs.push(format!("extra: {}", extra.display()));
    }
    Ok(diffs)
}
