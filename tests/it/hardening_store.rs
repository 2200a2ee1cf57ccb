//! Stores that can be trusted and ingest that cannot be abused (issue 13,
//! items 3 to 8): concurrent ingests and readers, a process killed at every
//! rename of a publication, stale or half-published tables, hostile
//! archives in bounded memory, gzip in several members, symbolic links and
//! archive twins. The bad-record cases of items 6 to 8 are in the corpus
//! (`tests/malformed/`, see `make_corpus.py`).
//!
//! Expected counts come from the fixtures, counted by hand: the real trace
//! directory (`real_trace_dir`) has 1 PAI job, 1 Philly job and 3 Helios
//! jobs, so its unified `jobs` table has 5 rows; adding one Helios job
//! makes 4 Helios jobs and 6 unified rows.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fs4::FileExt;

use crate::common::*;

const EXTRA_HELIOS_JOB: &str =
    "1425514,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 19:00:00,2020-06-09 19:00:00,2020-06-09 19:00:10,10,0\n";

/// The count of a one-number query, or the error.
fn count(store: &Path, sql: &str) -> Result<u64, String> {
    let (code, out, err) = tracelab(&["query", sql, "--store", s(store), "--format", "csv"]);
    if code != 0 {
        return Err(format!("exit {code}: {err}"));
    }
    out.lines().nth(1).and_then(|l| l.trim().parse().ok()).ok_or_else(|| format!("no count in {out:?}"))
}

fn real_dir(tmp: &Path) -> PathBuf {
    let raw = tmp.join("raw");
    real_trace_dir(&raw);
    raw
}

/// The real trace directory ingested into `<tmp>/store`: (raw, store).
fn ingested(tmp: &Path) -> (PathBuf, PathBuf) {
    let raw = real_dir(tmp);
    let store = tmp.join("store");
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--quiet"]);
    (raw, store)
}

fn add_helios_job(raw: &Path) {
    let log = raw.join("helios/Venus/cluster_log.csv");
    let mut f = std::fs::OpenOptions::new().append(true).open(log).unwrap();
    f.write_all(EXTRA_HELIOS_JOB.as_bytes()).unwrap();
}

fn files_named(dir: &Path, suffix: &str) -> Vec<String> {
    snapshot_tree(dir).into_iter().map(|(n, _)| n).filter(|n| n.ends_with(suffix)).collect()
}

// ------------------------------------------------------------ concurrency

/// Six ingests of one directory into one store at once (the issue saw 7
/// corrupt stores in 15 trials with two): each waits for the other, all
/// succeed, and the store is whole.
#[test]
fn concurrent_ingests_of_one_store_take_turns_and_all_succeed() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = real_dir(tmp.path());
    let store = tmp.path().join("store");
    let children: Vec<Child> =
        (0..6).map(|_| spawn(&["ingest", s(&raw), "--out", s(&store), "--force", "--quiet"], &[])).collect();
    for child in children {
        let (code, _, err) = finish(child);
        assert_eq!(code, 0, "{err}");
    }
    assert_eq!(count(&store, "SELECT count(*) AS n FROM jobs"), Ok(5));
    assert_eq!(count(&store, "SELECT count(*) AS n FROM helios_jobs"), Ok(3));
    assert!(files_named(&store, ".partial").is_empty());
}

/// Hold the store's lock as another process would.
fn hold(store: &Path, exclusive: bool) -> std::fs::File {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(store.join(".lock"))
        .unwrap();
    if exclusive {
        FileExt::lock(&f).unwrap();
    } else {
        FileExt::lock_shared(&f).unwrap();
    }
    f
}

fn still_running_after(child: &mut Child, wait: Duration) -> bool {
    std::thread::sleep(wait);
    child.try_wait().unwrap().is_none()
}

/// A reader started while an ingest holds the store waits for it (saying
/// so) and then reads; an ingest started while a reader holds the store
/// waits for the reader.
#[test]
fn readers_wait_for_an_ingest_and_an_ingest_for_readers() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = ingested(tmp.path());

    let writer = hold(&store, true);
    let mut query = spawn(&["query", "SELECT count(*) AS n FROM jobs", "--store", s(&store), "--format", "csv"], &[]);
    assert!(still_running_after(&mut query, Duration::from_millis(1500)), "the query did not wait for the ingest");
    drop(writer);
    let (code, out, err) = finish(query);
    assert_eq!((code, out.as_str()), (0, "n\n5\n"), "{err}");
    assert!(err.contains("waiting for the tracelab ingest writing"), "{err}");

    let reader = hold(&store, false);
    let mut ingest = spawn(&["ingest", s(&raw), "--out", s(&store), "--force", "--quiet"], &[]);
    assert!(still_running_after(&mut ingest, Duration::from_millis(1500)), "the ingest did not wait for the reader");
    drop(reader);
    let (code, _, err) = finish(ingest);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("waiting for the other tracelab processes using"), "{err}");
}

// ------------------------------------------------------------ publication

/// Kills the ingest of a changed Helios trace just before each rename of
/// its publication (tables, manifest, then the unified table and its
/// manifest). After every crash a reader sees either a consistent store
/// (the unified table agrees with the Helios table) or an error that says
/// to re-ingest, never a mixed store; and the next ingest repairs it.
#[test]
fn killed_at_every_rename_a_store_is_never_read_half_published_and_the_next_ingest_repairs_it() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, base) = ingested(tmp.path());
    add_helios_job(&raw);
    let mut crashes = 0;
    for n in 1.. {
        let store = tmp.path().join(format!("store-{n}"));
        copy_dir(&base, &store);
        let at = n.to_string();
        let (code, _, err) = run_env(
            &["ingest", s(&raw), "--out", s(&store), "--quiet"],
            &[("TRACELAB_TEST_CRASH_AT_RENAME", at.as_str())],
        );
        if code == 0 {
            break;
        }
        assert_eq!(code, -1, "rename {n}: not the crash hook but {err}");
        crashes += 1;
        let unified = count(&store, "SELECT count(*) AS n FROM jobs WHERE trace = 'helios'");
        let helios = count(&store, "SELECT count(*) AS n FROM helios_jobs");
        match (unified, helios) {
            (Ok(u), Ok(h)) => {
                assert!(u == h && (h == 3 || h == 4), "rename {n}: jobs has {u} Helios rows, helios_jobs {h}")
            }
            (Err(e), _) | (_, Err(e)) => assert!(e.contains("re-ingest with `tracelab ingest"), "rename {n}: {e}"),
        }
        tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--quiet"]);
        assert_eq!(count(&store, "SELECT count(*) AS n FROM jobs"), Ok(6), "rename {n}: after the repair");
        assert_eq!(count(&store, "SELECT count(*) AS n FROM helios_jobs"), Ok(4));
        assert!(files_named(&store, ".partial").is_empty(), "rename {n}: partial files left after the repair");
        std::fs::remove_dir_all(&store).unwrap();
    }
    // Helios: jobs, rejects, vc_gpus and the manifest; the unified table and its manifest.
    assert_eq!(crashes, 6, "crash points exercised");
}

/// The states an interrupted ingest of the previous release left, made by
/// hand: a `jobs` table older than the trace tables (killed before the
/// unified table's rename), and a trace whose tables are new and old
/// without a manifest (killed among the table renames). Readers refuse
/// both; the next ingest rebuilds what is stale.
#[test]
fn a_stale_unified_table_is_rebuilt_and_a_half_published_trace_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = ingested(tmp.path());
    let old_jobs = std::fs::read(store.join("jobs.parquet")).unwrap();
    let old_helios = std::fs::read(store.join("helios/jobs.parquet")).unwrap();
    add_helios_job(&raw);
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--quiet"]);

    std::fs::write(store.join("jobs.parquet"), &old_jobs).unwrap();
    let err = count(&store, "SELECT count(*) AS n FROM jobs").unwrap_err();
    assert!(err.contains("jobs") && err.contains("re-ingest"), "{err}");
    let out = tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert!(out.contains("jobs -> "), "the unified table was not rebuilt: {out}");
    assert_eq!(count(&store, "SELECT count(*) AS n FROM jobs"), Ok(6));

    std::fs::remove_file(store.join("helios/manifest.json")).unwrap();
    std::fs::write(store.join("helios/jobs.parquet"), &old_helios).unwrap();
    let err = count(&store, "SELECT count(*) AS n FROM helios_jobs").unwrap_err();
    assert!(err.contains("helios: tables without a manifest: the last ingest did not finish"), "{err}");
    let (code, _, err) = tracelab(&["analyze", "helios.monthly", "--store", s(&store)]);
    assert_eq!(code, 1, "{err}");
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--quiet"]);
    assert_eq!(count(&store, "SELECT count(*) AS n FROM helios_jobs"), Ok(4));
}

/// A store written before manifests listed their files (format 1) asks
/// for a re-ingest, which ingest then does by itself.
#[test]
fn a_store_of_an_older_format_asks_for_a_re_ingest() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = ingested(tmp.path());
    let path = store.join("pai/manifest.json");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"format_version\": 2", "\"format_version\": 1")).unwrap();
    let err = count(&store, "SELECT count(*) AS n FROM pai_jobs").unwrap_err();
    assert!(err.contains("pai: written by an older tracelab (store format 1") && err.contains("re-ingest"), "{err}");
    let out = tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert!(out.contains("pai: ingested"), "{out}");
    assert_eq!(count(&store, "SELECT count(*) AS n FROM pai_jobs"), Ok(1));
}

// ------------------------------------------------------------ bounded memory

/// Runs tracelab, sampling its peak resident memory (VmHWM, which only
/// grows) until it exits; returns (exit code, stderr, peak MiB).
fn run_measured(args: &[&str]) -> (i32, String, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tracelab"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kib = 0;
    let started = Instant::now();
    let code = loop {
        if let Some(hwm) = std::fs::read_to_string(&status).ok().and_then(|s| vm_hwm_kib(&s)) {
            peak_kib = peak_kib.max(hwm);
        }
        if let Some(st) = child.try_wait().unwrap() {
            break st.code().unwrap_or(-1);
        }
        assert!(started.elapsed() < Duration::from_secs(600), "tracelab {args:?} runs for 10 minutes");
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    (code, err, peak_kib / 1024)
}

fn vm_hwm_kib(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// 256 MiB of hostile content in archives of about 250 KB: a single line
/// (tar.gz and zip), a GNU long name, a PAX header and a `.header` file.
/// Ingest stays under 400 MiB (it needs about 200 MiB for anything; the
/// previous release grew a buffer to the line's size and copied it, over
/// 768 MiB here and 3.2 GB at 1 GiB). Lines become rejects whose raw value
/// is cut; metadata is an error that does not echo it.
#[test]
fn hostile_archives_are_read_in_bounded_memory() {
    const SIZE: u64 = 256 << 20;
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for (case, error) in [
        ("tar-line", None),
        ("zip-line", None),
        (
            "gnu-longname",
            Some("pai_job_table.tar.gz: a tar metadata entry (long name or PAX header) of 268435456 bytes"),
        ),
        ("pax-header", Some("pai_job_table.tar.gz: a tar metadata entry (long name or PAX header) of 268435456 bytes")),
        ("header-file", Some("pai_job_table.tar.gz!pai_job_table.header: larger than 65536 bytes")),
    ] {
        let dir = tmp.path().join(case);
        python("tests/malformed/hostile.py", &[case, &SIZE.to_string(), s(&dir)]);
        let store = tmp.path().join(format!("{case}.store"));
        let (code, err, peak_mib) = run_measured(&["ingest", s(&dir), "--out", s(&store), "--quiet"]);
        if peak_mib >= 400 {
            failures.push(format!("{case}: peak {peak_mib} MiB"));
        }
        match error {
            Some(want) => {
                if code != 1 || !err.contains(want) || err.len() > 600 {
                    failures.push(format!("{case}: exit {code}, stderr {} bytes: {:.600}", err.len(), err));
                }
            }
            None => {
                if code != 0 {
                    failures.push(format!("{case}: exit {code}: {err:.600}"));
                    continue;
                }
                let trace = if case == "zip-line" { "helios" } else { "pai" };
                let rejects = read_parquet(&store.join(trace).join("rejects.parquet"));
                let reason = rejects.column("reason").unwrap().str().unwrap().get(0).unwrap_or("").to_string();
                let raw = rejects.column("raw_value").unwrap().str().unwrap().get(0).unwrap_or("").to_string();
                let want = format!("line of {SIZE} bytes, longer than the limit of 1048576 bytes");
                if rejects.height() != 1 || !reason.contains(&want) || raw.chars().count() > 203 {
                    failures.push(format!(
                        "{case}: {} rejects, reason {reason:?}, raw of {} chars",
                        rejects.height(),
                        raw.len()
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `--max-record-bytes` moves the line limit: a 2,000-byte job name is a
/// record under the default limit and a reject under 1,024 bytes.
#[test]
fn the_record_limit_is_configurable() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = real_dir(tmp.path());
    let long = format!("{},i9,u9,Failed,1.0,2.0\n", "j".repeat(2000));
    let mut f = std::fs::OpenOptions::new().append(true).open(raw.join("pai/pai_job_table.csv")).unwrap();
    f.write_all(long.as_bytes()).unwrap();
    let store = tmp.path().join("store");
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store), "--strict", "--quiet"]);
    assert_eq!(count(&store, "SELECT count(*) AS n FROM pai_jobs"), Ok(2));
    let (code, _, err) =
        tracelab(&["ingest", s(&raw), "--out", s(&store), "--force", "--strict", "--max-record-bytes", "1024"]);
    assert_eq!(code, 1, "{err}");
    let rejects = read_parquet(&store.join("pai/rejects.parquet"));
    let reason = rejects.column("reason").unwrap().str().unwrap().get(0).unwrap().to_string();
    assert!(reason.contains("line of 2021 bytes, longer than the limit of 1024 bytes"), "{reason}");
}

// ------------------------------------------------------------ no silent loss

/// A tar stream cut into gzip members, each compressed on its own.
fn split_gzip(tar: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut from = 0;
    for &to in cuts.iter().chain([&tar.len()]) {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(&tar[from..to]).unwrap();
        out.extend(enc.finish().unwrap());
        from = to;
    }
    out
}

/// Philly's `trace-data.tar.gz` in three gzip members (one cut at the tar
/// boundary after the job log, one inside the GPU file): every table is
/// read, as from the extracted files (the first member alone used to be
/// read, silently dropping every table after the job log).
#[test]
fn a_tar_gz_of_several_gzip_members_is_read_to_the_end() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = real_dir(tmp.path());
    let mut builder = tar::Builder::new(Vec::new());
    let mut boundary = 0;
    for name in ["cluster_job_log", "cluster_gpu_util", "cluster_cpu_util", "cluster_mem_util", "cluster_machine_list"]
    {
        let data = std::fs::read(plain.join("philly").join(name)).unwrap();
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        builder.append_data(&mut header, format!("trace-data/{name}"), &data[..]).unwrap();
        if boundary == 0 {
            boundary = builder.get_ref().len();
        }
    }
    let tar = builder.into_inner().unwrap();
    let packed = tmp.path().join("packed");
    std::fs::create_dir_all(packed.join("philly")).unwrap();
    std::fs::write(packed.join("philly/trace-data.tar.gz"), split_gzip(&tar, &[boundary, boundary + 700])).unwrap();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    let only_philly = tmp.path().join("plain-philly");
    copy_dir(&plain.join("philly"), &only_philly.join("philly"));
    tracelab_ok(&["ingest", s(&only_philly), "--out", s(&a), "--quiet"]);
    tracelab_ok(&["ingest", s(&packed), "--out", s(&b), "--quiet", "--strict"]);
    for table in ["jobs", "attempts", "placements", "gpu_util", "cpu_util", "mem_util", "machines"] {
        let f = format!("philly/{table}.parquet");
        let (x, y) = (read_parquet(&a.join(&f)), read_parquet(&b.join(&f)));
        assert!(
            x.height() > 0 && x.equals_missing(&y),
            "{table}: {} rows extracted, {} from the archive",
            x.height(),
            y.height()
        );
    }
}

/// A broken symbolic link and a link to a folder outside the tree (holding
/// another Helios trace) are listed as not read; the ingest goes on with
/// the rest (a broken link used to stop it, a folder link to be followed).
#[test]
fn symbolic_links_are_listed_not_fatal_and_folders_not_followed() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = real_dir(tmp.path());
    let outside = tmp.path().join("outside");
    real_trace_dir(&outside);
    add_helios_job(&outside);
    std::os::unix::fs::symlink(tmp.path().join("nowhere"), raw.join("pai/broken")).unwrap();
    std::os::unix::fs::symlink(outside.join("helios"), raw.join("more-helios")).unwrap();
    let store = tmp.path().join("store");
    let out = tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert!(out.contains("more-helios (a symbolic link to a folder: not followed)"), "{out}");
    assert!(out.contains("pai/broken (a broken symbolic link)"), "{out}");
    assert_eq!(count(&store, "SELECT count(*) AS n FROM helios_jobs"), Ok(3));
}

/// An archive member that is a symbolic link is not followed and not read,
/// and a note counts it (a zip's link was skipped without a word): Helios'
/// `data.zip` with a link where Earth's job log would be, and PAI's job
/// table `.tar.gz` with a link beside the table.
#[test]
fn links_inside_archives_are_counted_in_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = real_dir(tmp.path());
    let venus = raw.join("helios/Venus");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(raw.join("helios/data.zip")).unwrap());
    let options = zip::write::SimpleFileOptions::default();
    for name in ["cluster_log.csv", "cluster_gpu_number.csv"] {
        zip.start_file(format!("data/Venus/{name}"), options).unwrap();
        zip.write_all(&std::fs::read(venus.join(name)).unwrap()).unwrap();
    }
    zip.add_symlink("data/Earth/cluster_log.csv", "../../../../etc/passwd", options).unwrap();
    zip.finish().unwrap();
    std::fs::remove_dir_all(&venus).unwrap();
    std::fs::remove_dir_all(raw.join("helios/Earth")).unwrap();
    let csv = raw.join("pai/pai_job_table.csv");
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast()));
    tar.append_path_with_name(&csv, "pai_job_table.csv").unwrap();
    let mut link = tar::Header::new_gnu();
    link.set_entry_type(tar::EntryType::Symlink);
    link.set_size(0);
    tar.append_link(&mut link, "pai_task_table.csv", "/etc/passwd").unwrap();
    std::fs::write(raw.join("pai/pai_job_table.tar.gz"), tar.into_inner().unwrap().finish().unwrap()).unwrap();
    std::fs::remove_file(&csv).unwrap();
    let store = tmp.path().join("store");
    let out = tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert!(out.contains("helios/data.zip: 1 member not read: data/Earth/cluster_log.csv (a symbolic link)"), "{out}");
    assert!(out.contains("pai/pai_job_table.tar.gz: 1 member not read: pai_task_table.csv (a symbolic link)"), "{out}");
    // Venus' three jobs from the zip; PAI's one job from the tar.
    assert_eq!(count(&store, "SELECT count(*) AS n FROM helios_jobs"), Ok(3));
    assert_eq!(count(&store, "SELECT count(*) AS n FROM pai_jobs"), Ok(1));
}

/// A table extracted beside its download: the archive is skipped (and
/// hashed), so a second ingest finds nothing changed (it re-ingested every
/// time, the skipped archive missing from the manifest's inputs).
#[test]
fn an_extracted_table_beside_its_archive_is_not_re_ingested_every_run() {
    let tmp = tempfile::tempdir().unwrap();
    let raw = real_dir(tmp.path());
    let csv = raw.join("pai/pai_job_table.csv");
    tracelab_synth::archive::tar_gz(&raw.join("pai/pai_job_table.tar.gz"), &[(&csv, "pai_job_table.csv")]).unwrap();
    let store = tmp.path().join("store");
    let first = tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert!(
        first.contains("pai/pai_job_table.tar.gz skipped: the extracted pai/pai_job_table.csv beside it was read"),
        "{first}"
    );
    let again = tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    assert_eq!(again.matches("unchanged since the last ingest").count(), 3, "{again}");
}
