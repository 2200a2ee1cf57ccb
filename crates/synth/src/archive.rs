//! Packs generated files the way the owners ship them: PAI's per-table
//! `<stem>.tar.gz`, Philly's `trace-data.tar.gz`, Helios' `data.zip`.
//! Archives are deterministic (zero mtimes, fixed modes and owners), so the
//! same seed gives byte-identical archives. Written whole through a
//! temporary file ([`tracelab_schema::outfile`]), as every synth file.

use std::fs::File;
use std::io::{BufReader, BufWriter};
use std::path::Path;

use flate2::write::GzEncoder;
use flate2::{Compression, GzBuilder};

use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::outfile::{OutputFile, Replace};

/// Writes `archive` (a `.tar.gz`) holding `members`: (file on disk, name in
/// the archive). gzip level 6, as `tar -czf` uses.
pub fn tar_gz(archive: &Path, members: &[(&Path, &str)]) -> Result<()> {
    let file = OutputFile::create(archive, Replace::Regular)?;
    let gz: GzEncoder<BufWriter<OutputFile>> =
        GzBuilder::new().mtime(0).write(BufWriter::new(file), Compression::new(6));
    let mut tar = tar::Builder::new(gz);
    tar.mode(tar::HeaderMode::Deterministic);
    for (path, name) in members {
        let mut header = tar::Header::new_gnu();
        let len = std::fs::metadata(path).at(path)?.len();
        header.set_size(len);
        header.set_mode(0o644);
        header.set_mtime(0);
        header.set_uid(0);
        header.set_gid(0);
        header.set_entry_type(tar::EntryType::Regular);
        let reader = BufReader::new(File::open(path).at(path)?);
        tar.append_data(&mut header, name, reader).at(archive)?;
    }
    let gz = tar.into_inner().at(archive)?;
    let inner = gz.finish().at(archive)?;
    inner.into_inner().map_err(|e| Error::io(archive, e.into_error()))?.commit()
}

/// Writes `archive` (a `.zip`, deflate) holding `members`.
pub fn zip(archive: &Path, members: &[(&Path, &str)]) -> Result<()> {
    let file = OutputFile::create(archive, Replace::Regular)?;
    let mut zip = zip::ZipWriter::new(BufWriter::new(file));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .last_modified_time(zip::DateTime::default())
        .unix_permissions(0o644)
        .large_file(true);
    for (path, name) in members {
        zip.start_file(*name, options).map_err(|e| zip_error(archive, e))?;
        let mut reader = BufReader::new(File::open(path).at(path)?);
        std::io::copy(&mut reader, &mut zip).at(archive)?;
    }
    let inner = zip.finish().map_err(|e| zip_error(archive, e))?;
    inner.into_inner().map_err(|e| Error::io(archive, e.into_error()))?.commit()
}

fn zip_error(archive: &Path, e: zip::result::ZipError) -> Error {
    Error::input(archive.display().to_string(), format!("writing the zip failed: {e}"))
}
