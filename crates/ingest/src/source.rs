//! Finding the traces in a directory and reading their files as streams.
//!
//! A trace directory holds the official downloads as they are: plain files,
//! PAI's per-table `.tar.gz`, Philly's `trace-data.tar.gz`, Helios' `data.zip`
//! (or the same extracted, in any sub-folder), and Standard Workload Format
//! logs (`*.swf`, or `*.swf.gz` as the Parallel Workloads Archive ships
//! them), AcmeTrace's `trace_seren.csv` / `trace_kalos.csv` and the spot-GPU
//! trace's `job_info_df.csv` / `node_info_df.csv` (plain as their
//! repositories hold them, or gzipped, or each in a `.tar.gz` of its stem).
//! Files are recognized by name. Archives are read member by member
//! as streams, a lone `.gz` as its one member; nothing is extracted to
//! disk. Every byte read is hashed (SHA-256) for the manifest and counted for
//! the progress bar.
//!
//! Nothing is dropped silently: an archive member that is not a file (a
//! symbolic or hard link; links are never followed) is listed in a note, a
//! gzip of several members is read to its
//! end, data after the end of a tar archive, a zip holding one path twice
//! and a zip member compressed with a method tracelab cannot read are
//! errors naming the file; a broken symbolic link and a symbolic link to a
//! folder (which could lead out of the tree, or in a circle) are listed as
//! not read, and so is a tracelab report folder (`report DIR` writes one
//! inside DIR). Archive metadata (tar long names, PAX headers) is refused
//! beyond [`Limits::max_meta_bytes`] instead of being read into memory.

use std::fs::File;
use std::io::{self, BufReader, Read};
use std::path::{Path, PathBuf};

use super::hashing::Hashing;
use super::prefetch::Prefetch;
use super::Limits;

use tracelab_schema::error::{Error, IoContext, Result};
use tracelab_schema::raw::RawCsv;
use tracelab_schema::synthetic::{Marker, MARKER_FILE, MAX_BYTES};
use tracelab_schema::Trace;
use tracelab_schema::{raw, swf};
use tracelab_store::manifest::{Digest256, StatEntry};

/// How a physical input file is packed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Packing {
    Plain,
    TarGz,
    Zip,
    /// One gzip-compressed file (`x.swf.gz`), read as its single member.
    Gz,
}

/// A physical file of a trace, as the manifest lists it.
#[derive(Debug, Clone)]
pub struct InputFile {
    pub path: PathBuf,
    /// Path relative to the trace directory, `/`-separated.
    pub rel: String,
    pub bytes: u64,
    pub packing: Packing,
}

/// The files found for one trace.
#[derive(Debug, Clone)]
pub struct TraceInputs {
    pub trace: Trace,
    pub files: Vec<InputFile>,
}

#[derive(Debug, Default)]
pub struct Discovery {
    pub traces: Vec<TraceInputs>,
    /// Files that belong to no known trace (reported, not read).
    pub ignored: Vec<String>,
}

/// Walks `dir` (skipping hidden entries and the store) and sorts what it
/// finds into traces.
pub fn discover(dir: &Path, store: &Path) -> Result<Discovery> {
    if !dir.is_dir() {
        return Err(Error::input(
            dir.display().to_string(),
            "not a directory; expected a folder holding trace downloads",
        ));
    }
    let mut files = Vec::new();
    let mut found = Discovery::default();
    walk(dir, dir, store, &mut files, &mut found.ignored)?;
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    for file in files {
        let trace = if is_marker(&file) { Some(marker_of(&file)?.trace) } else { classify(&file) };
        match trace {
            Some(trace) => match found.traces.iter_mut().find(|t| t.trace == trace) {
                Some(t) => t.files.push(file),
                None => found.traces.push(TraceInputs { trace, files: vec![file] }),
            },
            None => found.ignored.push(file.rel),
        }
    }
    // A reference file alone is not a PAI trace.
    if let Some(i) = found.traces.iter().position(|t| t.trace == Trace::Pai && t.files.iter().all(is_reference)) {
        found.ignored.extend(found.traces.remove(i).files.into_iter().map(|f| f.rel));
    }
    found.traces.sort_by_key(|t| t.trace);
    found.ignored.sort();
    Ok(found)
}

/// Files read with a trace that are not part of its download
/// (`philly_runtime.csv`, read with PAI).
fn is_reference(file: &InputFile) -> bool {
    file.rel.rsplit('/').next() == Some(raw::pai::PHILLY_RUNTIME.file)
}

fn walk(root: &Path, dir: &Path, store: &Path, out: &mut Vec<InputFile>, ignored: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir).at(dir)? {
        let entry = entry.at(dir)?;
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || same_path(&path, store) {
            continue;
        }
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let symlink = entry.file_type().at(&path)?.is_symlink();
        let meta = match std::fs::metadata(&path) {
            Ok(m) => m,
            Err(_) if symlink => {
                ignored.push(format!("{rel} (a broken symbolic link)"));
                continue;
            }
            Err(e) => return Err(Error::io(&path, e)),
        };
        if meta.is_dir() && symlink {
            ignored.push(format!("{rel} (a symbolic link to a folder: not followed)"));
        } else if meta.is_dir() && path.join(tracelab_store::folder::MARKER).is_file() {
            // `tracelab report DIR` writes DIR/tracelab-report: its figure
            // CSVs are not trace files.
            ignored.push(format!("{rel}/ (a tracelab report folder)"));
        } else if meta.is_dir() {
            walk(root, &path, store, out, ignored)?;
        } else if meta.is_file() {
            let packing = packing_of(&name);
            out.push(InputFile { path, rel, bytes: meta.len(), packing });
        }
    }
    Ok(())
}

fn same_path(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

fn packing_of(name: &str) -> Packing {
    if name.ends_with(".tar.gz") || name.ends_with(".tgz") {
        Packing::TarGz
    } else if name.ends_with(".zip") {
        Packing::Zip
    } else if name.ends_with(".gz") {
        Packing::Gz
    } else {
        Packing::Plain
    }
}

/// Whether the file is a `tracelab synth` marker (`SYNTHETIC.json`).
pub fn is_marker(file: &InputFile) -> bool {
    file.rel.rsplit('/').next() == Some(MARKER_FILE)
}

/// The marker in `file`, checked: it names its trace, and a malformed one is
/// an error (a folder that says it is synthetic must say it properly).
pub fn marker_of(file: &InputFile) -> Result<Marker> {
    if file.bytes > MAX_BYTES {
        return Err(Error::input(
            &file.rel,
            format!("{} bytes; a {MARKER_FILE} marker is under {MAX_BYTES}", file.bytes),
        ));
    }
    let text = std::fs::read_to_string(&file.path).map_err(|e| Error::input(&file.rel, format!("unreadable: {e}")))?;
    Marker::parse(&text).map_err(|e| Error::input(&file.rel, format!("not a tracelab synth marker: {e}")))
}

/// Which trace a file belongs to, by its name (and for Helios its folder).
fn classify(file: &InputFile) -> Option<Trace> {
    let name = file.rel.rsplit('/').next().unwrap_or(&file.rel);
    let parent = file.rel.rsplit('/').nth(1).unwrap_or("");
    let pai_stems: Vec<&str> = raw::pai::TABLES.iter().map(|t| t.stem()).collect();
    let stem = name.trim_end_matches(".tar.gz").trim_end_matches(".csv").trim_end_matches(".header");
    if pai_stems.contains(&stem) || name == raw::pai::PHILLY_RUNTIME.file {
        return Some(Trace::Pai);
    }
    if philly_member(name).is_some() || name == raw::philly::ARCHIVE {
        return Some(Trace::Philly);
    }
    if raw::helios::CLUSTERS.contains(&parent)
        && (name == raw::helios::CLUSTER_LOG.file || name == raw::helios::GPU_NUMBER_FILE)
    {
        return Some(Trace::Helios);
    }
    if name == raw::helios::ARCHIVE || (file.packing == Packing::Zip && zip_has_helios(&file.path)) {
        return Some(Trace::Helios);
    }
    if acme_member(name).is_some() {
        return Some(Trace::Acme);
    }
    if spot_member(name).is_some() {
        return Some(Trace::Spot);
    }
    swf::stem(name).map(|_| Trace::Swf)
}

/// The CSV layout among `layouts` that a path denotes: `<stem>.csv`, the
/// same gzipped (`<stem>.csv.gz`), or the `<stem>.tar.gz` holding it (the
/// member of such an archive is the plain name). Folders are ignored.
fn csv_named<'l>(path: &str, layouts: impl IntoIterator<Item = &'l RawCsv>) -> Option<&'l RawCsv> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let name = name.strip_suffix(".gz").unwrap_or(name);
    layouts.into_iter().find(|l| name == l.file || name == format!("{}.tar", l.stem()))
}

/// `(cluster, layout)` of an AcmeTrace job trace (`trace_seren.csv`,
/// `trace_kalos.csv`, gzipped or in a `.tar.gz`).
pub fn acme_member(path: &str) -> Option<(&'static str, &'static RawCsv)> {
    let layout = csv_named(path, raw::acme::CLUSTERS.iter().map(|(_, l)| *l))?;
    raw::acme::CLUSTERS.iter().find(|(_, l)| l.file == layout.file).map(|(c, l)| (*c, *l))
}

/// The spot-GPU trace file a path denotes (`job_info_df.csv`,
/// `node_info_df.csv`, gzipped or in a `.tar.gz`).
pub fn spot_member(path: &str) -> Option<&'static RawCsv> {
    csv_named(path, [&raw::spot::JOBS, &raw::spot::NODES])
}

/// The Philly file a name denotes (`cluster_gpu_util`, also with a `.csv`
/// or `.json` extension someone added).
pub fn philly_member(name: &str) -> Option<&'static str> {
    let base = name.trim_end_matches(".csv").trim_end_matches(".json");
    std::iter::once(raw::philly::JOB_LOG).chain(raw::philly::CSV_FILES.iter().map(|f| f.file)).find(|f| *f == base)
}

/// `(cluster, file)` for a Helios member path like `data/Venus/cluster_log.csv`.
pub fn helios_member(path: &str) -> Option<(&'static str, &'static str)> {
    let mut parts = path.rsplit('/');
    let name = parts.next()?;
    let cluster = parts.next()?;
    let cluster = raw::helios::CLUSTERS.iter().find(|c| **c == cluster)?;
    let file = [raw::helios::CLUSTER_LOG.file, raw::helios::GPU_NUMBER_FILE].into_iter().find(|f| *f == name)?;
    Some((cluster, file))
}

/// Whether a zip of another name holds Helios files. An unreadable zip of
/// another name is someone else's file and is ignored (`data.zip` itself is
/// claimed by name, and a damaged one is reported when it is read).
fn zip_has_helios(path: &Path) -> bool {
    let Ok(file) = File::open(path) else { return false };
    let Ok(archive) = zip::ZipArchive::new(file) else { return false };
    let found = archive.file_names_raw().any(|n| helios_member(&String::from_utf8_lossy(n)).is_some());
    found
}

/// SHA-256 of a whole file.
pub fn sha256_file(path: &Path) -> Result<String> {
    sha256_file_with(path, Box::new(|_| {}))
}

fn sha256_file_with(path: &Path, tick: Box<dyn FnMut(u64) + Send>) -> Result<String> {
    let file = File::open(path).at(path)?;
    let mut h = Hashing::new(BufReader::with_capacity(1 << 20, file), tick);
    io::copy(&mut h, &mut io::sink()).at(path)?;
    Ok(h.finish().at(path)?.1)
}

/// One member of an input: a plain file is its own single member.
pub struct Member<'r> {
    /// Member path inside the archive, or the path relative to the trace
    /// directory for plain files.
    pub name: String,
    /// How errors and rejects name it: `rel` or `rel!member`.
    pub label: String,
    pub reader: &'r mut dyn Read,
}

/// What reading one input gave: its digest and the archive members not
/// read because they are not files (`name (a symbolic link)`); folders
/// are not listed.
pub struct Scanned {
    pub digest: Digest256,
    pub not_read: Vec<String>,
}

/// Streams each member of `file` to `visit` in archive order, then returns
/// the file's digest and the members it did not read. Errors reading
/// inside an archive are reported as a corrupt or truncated archive.
pub fn for_each_member(
    file: &InputFile,
    limits: &Limits,
    tick: Box<dyn FnMut(u64) + Send>,
    mut visit: impl FnMut(Member<'_>) -> Result<()>,
) -> Result<Scanned> {
    let mut not_read = Vec::new();
    if file.packing == Packing::Zip {
        let digest = visit_zip(file, tick, &mut visit, &mut not_read)?;
        return Ok(Scanned { digest, not_read });
    }
    let path = &file.path;
    let gunzip = matches!(file.packing, Packing::TarGz | Packing::Gz);
    let mut bytes = Prefetch::spawn(path, gunzip, tick).at(path)?;
    if file.packing == Packing::TarGz {
        visit_tar(file, &mut bytes, limits.max_meta_bytes, &mut visit, &mut not_read)
            .map_err(|e| archive_error(file, e))?;
        nothing_after_the_archive(file, &mut bytes)?;
    } else if file.packing == Packing::Gz {
        let member = Member { name: file.rel.clone(), label: file.rel.clone(), reader: &mut bytes };
        visit(member).map_err(|e| archive_error(file, e))?;
    } else {
        visit(Member { name: file.rel.clone(), label: file.rel.clone(), reader: &mut bytes })?;
    }
    let (read, sha256) = bytes.finish().map_err(|e| archive_error(file, Error::io(path, e)))?;
    Ok(Scanned { digest: Digest256 { file: file.rel.clone(), bytes: read, sha256 }, not_read })
}

/// Walks the members of an (already inflated) tar stream. The entries are
/// taken raw, so that a GNU long name or a PAX header is measured before it
/// is read (the tar crate reads them whole into memory).
fn visit_tar<R: Read>(
    file: &InputFile,
    reader: R,
    max_meta: usize,
    visit: &mut impl FnMut(Member<'_>) -> Result<()>,
    not_read: &mut Vec<String>,
) -> Result<()> {
    let mut archive = tar::Archive::new(reader);
    let entries = archive.entries().at(&file.path)?.raw(true);
    let mut long_name: Option<String> = None;
    for entry in entries {
        let mut entry = entry.at(&file.path)?;
        let kind = entry.header().entry_type();
        if kind.is_gnu_longname() || kind.is_gnu_longlink() || kind.is_pax_local_extensions() {
            let data = read_tar_meta(file, &mut entry, max_meta)?;
            if kind.is_gnu_longname() {
                long_name = Some(String::from_utf8_lossy(&data).trim_end_matches('\0').to_string());
            } else if kind.is_pax_local_extensions() {
                long_name = pax_path(&data).or(long_name);
            }
            continue;
        }
        if kind.is_pax_global_extensions() {
            read_tar_meta(file, &mut entry, max_meta)?;
            continue;
        }
        let name = match long_name.take() {
            Some(n) => n,
            None => entry.path().at(&file.path)?.to_string_lossy().into_owned(),
        };
        if !kind.is_file() {
            if !kind.is_dir() {
                not_read.push(format!("{name} ({})", tar_kind(kind)));
            }
            continue;
        }
        let label = format!("{}!{name}", file.rel);
        visit(Member { name, label, reader: &mut entry })?;
    }
    Ok(())
}

/// What a tar entry that is not a file is, for the note listing it.
fn tar_kind(kind: tar::EntryType) -> &'static str {
    match kind {
        tar::EntryType::Symlink => "a symbolic link",
        tar::EntryType::Link => "a hard link",
        _ => "not a regular file",
    }
}

/// The data of a metadata entry, refused beyond `max` bytes.
fn read_tar_meta<R: Read>(file: &InputFile, entry: &mut tar::Entry<'_, R>, max: usize) -> Result<Vec<u8>> {
    let size = entry.size();
    if size > max as u64 {
        return Err(Error::input(
            &file.rel,
            format!(
                "a tar metadata entry (long name or PAX header) of {size} bytes, more than the limit of {max}; \
                 expected a .tar.gz as downloaded"
            ),
        ));
    }
    let mut data = Vec::with_capacity(size as usize);
    entry.read_to_end(&mut data).at(&file.path)?;
    Ok(data)
}

/// The `path` of a PAX extended header.
fn pax_path(data: &[u8]) -> Option<String> {
    tar::PaxExtensions::new(data)
        .filter_map(std::result::Result::ok)
        .find(|e| e.key_bytes() == b"path")
        .map(|e| String::from_utf8_lossy(e.value_bytes()).into_owned())
}

/// After the tar's end marker only zero padding may follow: anything else
/// is a second archive or garbage that would otherwise go unread.
fn nothing_after_the_archive(file: &InputFile, rest: &mut dyn Read) -> Result<()> {
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = rest.read(&mut buf).map_err(|e| archive_error(file, Error::io(&file.path, e)))?;
        if n == 0 {
            return Ok(());
        }
        if buf[..n].iter().any(|&b| b != 0) {
            return Err(Error::input(
                &file.rel,
                "data after the end of the tar archive (a second archive appended?); expected one .tar.gz as downloaded",
            ));
        }
    }
}

fn visit_zip(
    file: &InputFile,
    tick: Box<dyn FnMut(u64) + Send>,
    visit: &mut impl FnMut(Member<'_>) -> Result<()>,
    not_read: &mut Vec<String>,
) -> Result<Digest256> {
    // Zip members are found through the central directory at the end, so
    // the file is hashed in a pass of its own (which drives the progress bar).
    let path = &file.path;
    let sha256 = sha256_file_with(path, tick)?;
    let opened = File::open(path).at(path)?;
    let mut archive = zip::ZipArchive::new(BufReader::new(opened)).map_err(|e| zip_error(file, e))?;
    if archive.has_duplicate_names() {
        // The zip crate keeps only the last member of a name.
        return Err(Error::input(&file.rel, "holds two members with the same path; expected each file once"));
    }
    // Members are visited in name order (zip allows any order), so the
    // tables come out the same as from the extracted folder.
    let mut order: Vec<(String, usize)> =
        (0..archive.len()).filter_map(|i| Some((archive.name_for_index(i)?.ok()?.into_owned(), i))).collect();
    order.sort();
    for (name, i) in order {
        let mut entry = archive.by_index(i).map_err(|e| zip_error(file, e).with_member(&name))?;
        if entry.is_symlink() {
            not_read.push(format!("{name} (a symbolic link)"));
            continue;
        }
        if entry.is_dir() {
            continue;
        }
        let method = entry.compression();
        if !matches!(method, zip::CompressionMethod::Stored | zip::CompressionMethod::Deflated) {
            return Err(unreadable_zip(file, format!("{method} compression")).with_member(&name));
        }
        let label = format!("{}!{name}", file.rel);
        visit(Member { name, label, reader: &mut entry }).map_err(|e| archive_error(file, e))?;
    }
    Ok(Digest256 { file: file.rel.clone(), bytes: file.bytes, sha256 })
}

/// A zip that cannot be opened: damaged, or packed in a way tracelab does
/// not read (it reads stored and deflate members).
fn zip_error(file: &InputFile, e: zip::result::ZipError) -> Error {
    use zip::result::ZipError;
    match e {
        ZipError::UnsupportedArchive(_) | ZipError::CompressionMethodNotSupported(_) => unreadable_zip(file, e),
        _ => Error::input(&file.rel, format!("corrupt zip archive ({e}); expected a zip as downloaded")),
    }
}

fn unreadable_zip(file: &InputFile, detail: impl std::fmt::Display) -> Error {
    Error::input(
        &file.rel,
        format!(
            "uses a zip feature or compression tracelab cannot read ({detail}); tracelab reads stored and \
             deflate members: re-create the zip with deflate"
        ),
    )
}

trait WithMember {
    fn with_member(self, member: &str) -> Error;
}

impl WithMember for Error {
    /// Names the member an archive error is about.
    fn with_member(self, member: &str) -> Error {
        match self {
            Error::Input { file, problem } => Error::Input { file: format!("{file}!{member}"), problem },
            other => other,
        }
    }
}

/// Low-level read errors inside an archive mean the archive is damaged.
fn archive_error(file: &InputFile, e: Error) -> Error {
    match e {
        Error::Io { source, .. } => Error::input(
            &file.rel,
            format!(
                "corrupt or truncated archive ({source}); expected a complete {} as downloaded",
                kind_name(file.packing)
            ),
        ),
        other => other,
    }
}

fn kind_name(p: Packing) -> &'static str {
    match p {
        Packing::Plain => "file",
        Packing::TarGz => ".tar.gz",
        Packing::Zip => ".zip",
        Packing::Gz => ".gz",
    }
}

/// `(file, bytes, mtime ns)` of each input, sorted by path: the cheap
/// fingerprint that recognizes an unchanged directory without hashing it.
pub fn stat_fingerprint(files: &[InputFile]) -> Result<Vec<StatEntry>> {
    let mut files: Vec<&InputFile> = files.iter().collect();
    files.sort_by(|a, b| a.rel.cmp(&b.rel));
    files
        .into_iter()
        .map(|f| {
            let meta = std::fs::metadata(&f.path).at(&f.path)?;
            let mtime_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            Ok(StatEntry { file: f.rel.clone(), bytes: meta.len(), mtime_ns })
        })
        .collect()
}
