//! `tracelab report` files: PNG and PDF drawn from the SVG with the same
//! bytes every run, each figure's CSV, and hostile names from a trace or a
//! spec escaped in every file (HTML, Markdown, SVG; exact in CSV and JSON).

use std::path::Path;

use super::report::small_spec;
use super::report_traces::{check_figures, json_file};
use crate::common::*;

// ---------------------------------------------------------------- formats

#[test]
fn png_and_pdf_come_from_the_same_svg_with_the_same_bytes_every_run() {
    let tmp = tempfile::tempdir().unwrap();
    let spec = small_spec(tmp.path(), "Small", "");
    let run = |out: &str| {
        let out = tmp.path().join(out);
        let args =
            ["report", "--store", s(sample_store()), "--spec", s(&spec), "--out", s(&out), "--formats", "svg,png,pdf"];
        tracelab_ok(&[&args[..], &["--no-cache", "-q"]].concat());
        snapshot_tree(&out)
    };
    let (a, b) = (run("a"), run("b"));
    assert_eq!(a, b, "two runs differ");
    let file = |name: &str| a.iter().find(|(p, _)| p == name).map_or_else(|| panic!("no {name}"), |(_, b)| b.clone());
    // The figure is 560 x 360 px: PNG at 2 px per px, PDF 560 x 360 pt.
    let png = file("small/a.png");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let be = |i: usize| u32::from_be_bytes(png[i..i + 4].try_into().unwrap());
    assert_eq!((be(16), be(20)), (1120, 720));
    let pdf = String::from_utf8_lossy(&file("small/a.pdf")).into_owned();
    assert!(pdf.starts_with("%PDF-") && pdf.contains("/MediaBox [0 0 560 360]"), "{}", &pdf[..40]);
    let csv = String::from_utf8(file("small/a.csv")).unwrap();
    assert!(csv.starts_with("series,tasks per user,CDF (%)\nusers,"), "{csv}");
    let html = String::from_utf8(file("index.html")).unwrap();
    for link in
        ["<a href=\"small/a.csv\">CSV</a>", "<a href=\"small/a.png\">PNG</a>", "<a href=\"small/a.pdf\">PDF</a>"]
    {
        assert!(html.contains(link), "{link}");
    }
    // Without --formats only SVG and CSV are written.
    let out = tmp.path().join("c");
    tracelab_ok(&["report", "--store", s(sample_store()), "--spec", s(&spec), "--out", s(&out), "-q"]);
    let names: Vec<String> = snapshot_tree(&out.join("small")).into_iter().map(|(p, _)| p).collect();
    assert_eq!(names, ["a.csv", "a.svg"]);
    let (code, _, stderr) = tracelab(&["report", "--store", s(sample_store()), "--formats", "bmp"]);
    assert_eq!(code, 2, "{stderr}");
}

// ---------------------------------------------------------------- hostile strings

/// A Helios Earth trace whose VC and user names carry markup, pipes, ESC,
/// U+FFFE and U+202E (and a spec title with a newline and `<script>`).
fn hostile_traces(dir: &Path) -> std::path::PathBuf {
    let vcs = ["<script>alert(1)</script>", "a|b", "vc\u{1b}[31mred", "vc\u{fffe}x", "\u{202e}gnp.exe"];
    let users = ["<svg onload=alert(1)>", "u|1", "u\u{1b}]0;t\u{7}", "u\u{fffe}", "\u{202e}u"];
    let earth = dir.join("traces/helios/Earth");
    std::fs::create_dir_all(&earth).unwrap();
    let mut log =
        String::from("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n");
    let mut id = 1;
    for day in 1..=3 {
        for hour in (0..24).step_by(3) {
            for (i, vc) in vcs.iter().enumerate() {
                let (user, state) = (users[(i + hour) % 5], ["COMPLETED", "FAILED", "CANCELLED"][(i + hour) % 3]);
                let gpus = [0, 1, 2, 8][(i + day + hour) % 4];
                log.push_str(&format!(
                    "{id},{user},{vc},{gpus},4,1,{state},2020-06-0{day} {hour:02}:10:00,2020-06-0{day} {hour:02}:12:00,\
                     2020-06-0{day} {hour:02}:40:00,1680,120\n"
                ));
                id += 1;
            }
        }
    }
    std::fs::write(earth.join("cluster_log.csv"), log).unwrap();
    let mut gpus = format!("date,{},total\n", vcs.join(","));
    for d in 0..181 {
        let day = chrono::NaiveDate::from_ymd_opt(2020, 4, 1).unwrap() + chrono::Days::new(d);
        gpus.push_str(&format!("{day},16,16,16,16,16,80\n"));
    }
    std::fs::write(earth.join("cluster_gpu_number.csv"), gpus).unwrap();
    dir.join("traces")
}

#[test]
fn hostile_names_are_escaped_in_every_file_of_the_report() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = hostile_traces(tmp.path());
    let spec = small_spec(tmp.path(), "x", "");
    let text = std::fs::read_to_string(&spec).unwrap().replace("title = \"x\"", "title = \"<script>a</script>\\nb|c\"");
    let spec = tmp.path().join("small.toml");
    std::fs::write(&spec, text.replace("traces = [\"pai\"]", "traces = [\"pai\", \"helios\"]")).unwrap();
    let out = tmp.path().join("out");
    let store = tmp.path().join("store");
    let (code, _, stderr) = tracelab(&["report", s(&dir), "--store", s(&store), "--out", s(&out)]);
    assert_eq!(code, 0, "{stderr}");
    // And a spec's strings, through the same pages.
    let out2 = tmp.path().join("out2");
    let (code, _, stderr) = tracelab(&["report", "--store", s(sample_store()), "--spec", s(&spec), "--out", s(&out2)]);
    assert_eq!(code, 0, "{stderr}");
    let mut vc_figures = 0;
    for out in [&out, &out2] {
        for (rel, bytes) in snapshot_tree(out) {
            let text = String::from_utf8(bytes).unwrap_or_else(|_| panic!("{rel}: not UTF-8"));
            if rel.ends_with(".html") || rel.ends_with(".md") || rel.ends_with(".svg") {
                for bad in ["<script", "<svg onload", "\u{1b}", "\u{fffe}", "\u{202e}", "\u{7}"] {
                    assert!(!text.contains(bad), "{rel} holds {bad:?} raw");
                }
            }
            if rel.ends_with(".svg") {
                roxmltree::Document::parse(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
                // The name as drawn (cut to fit the axis): `vc\x1b[31m…`.
                vc_figures += usize::from(text.contains("aria-label=\"vc\\x1b[31m"));
            }
            if rel.ends_with(".md") {
                // Pipes in names are escaped: every table row has as many
                // cell separators as its header.
                let seps = |l: &str| l.replace("\\|", "").matches('|').count();
                let mut header = 0;
                for l in text.lines().filter(|l| l.starts_with('|')) {
                    if header == 0 || l.starts_with("| headline") || l.starts_with("| analysis") {
                        header = seps(l);
                    }
                    assert_eq!(seps(l), header, "{rel}: {l}");
                }
            }
        }
        check_figures(out);
        json_file(&out.join("summary.json"));
    }
    assert!(vc_figures > 0, "no figure shows the escaped VC name");
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;") && html.contains("vc\\ufffex"));
    let html2 = std::fs::read_to_string(out2.join("index.html")).unwrap();
    assert!(html2.contains("&lt;script&gt;a&lt;/script&gt;\\nb|c"), "the spec title, escaped");
    let md = std::fs::read_to_string(out2.join("summary.md")).unwrap();
    // A line break in Markdown is `<br>` (present::markdown): the heading stays one line.
    assert!(md.contains("## &lt;script&gt;a&lt;/script&gt;<br>b\\|c"), "{md}");
    // The data files keep the names exactly (CSV quoting, JSON escapes).
    let summary = json_file(&out.join("summary.json"));
    assert!(summary.to_string().contains("vc\\u001b[31mred"));
}
