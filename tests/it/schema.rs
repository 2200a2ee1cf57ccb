//! `tracelab schema` and the help texts: the schema document in the repo
//! is the spec of the store, and the help is part of the interface.

use crate::common::*;

#[test]
fn schema_markdown_matches_the_document_in_the_repo() {
    let doc = std::fs::read_to_string(root().join("docs/schema.md")).unwrap();
    let out = tracelab_ok(&["schema", "all", "--format", "markdown"]);
    assert!(
        out == doc,
        "docs/schema.md is stale: regenerate it with `tracelab schema all --format markdown > docs/schema.md`"
    );
}

#[test]
fn schema_json_lists_every_parquet_file_ingest_writes() {
    let tmp = tempfile::tempdir().unwrap();
    let (raw, store) = (tmp.path().join("raw"), tmp.path().join("store"));
    real_trace_dir(&raw);
    // The real traces, AcmeTrace's README rows, a two-file spot-GPU trace
    // written by hand (none of the real one may be kept) and an SWF log:
    // every trace kind.
    std::fs::write(raw.join("log.swf"), "; UnixStartTime: 0\n1 0 1 2 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n").unwrap();
    copy_dir(&root().join("tests/fixtures/real-traces/acme/readme-example-rows"), &raw.join("acme"));
    std::fs::create_dir_all(raw.join("spot")).unwrap();
    std::fs::write(
        raw.join("spot/job_info_df.csv"),
        "job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type\n\
         job-1,org-a,A10,8,1,1,0,3600,HP\n",
    )
    .unwrap();
    std::fs::write(raw.join("spot/node_info_df.csv"), "gpu_model,gpu_capacity_num,cpu_num,node_name\nA10,1,126,n1\n")
        .unwrap();
    tracelab_ok(&["ingest", s(&raw), "--out", s(&store)]);
    let json: serde_json::Value = serde_json::from_str(&tracelab_ok(&["schema", "all", "--format", "json"])).unwrap();
    let mut documented: Vec<String> = json
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let name = t["table"].as_str().unwrap();
            let file = t["file"].as_str().unwrap();
            match name.split_once('/') {
                Some((trace, _)) => format!("{trace}/{file}"),
                None => file.to_string(),
            }
        })
        .collect();
    let mut written: Vec<String> = snapshot_tree(&store)
        .into_iter()
        .map(|(n, _)| n)
        .filter(|n| n.ends_with(".parquet") && !n.split('/').next_back().unwrap().starts_with('.'))
        .collect();
    documented.sort();
    written.sort();
    assert_eq!(documented, written);
    // And each file's columns are the documented ones, in order.
    for t in json.as_array().unwrap() {
        let name = t["table"].as_str().unwrap();
        let path = match name.split_once('/') {
            Some((trace, _)) => store.join(trace).join(t["file"].as_str().unwrap()),
            None => store.join(t["file"].as_str().unwrap()),
        };
        let df = read_parquet(&path);
        let cols: Vec<String> = df.get_column_names().iter().map(ToString::to_string).collect();
        let want: Vec<String> =
            t["columns"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect();
        assert_eq!(cols, want, "{name}");
    }
}

#[test]
fn usage_errors_exit_2_and_a_closed_pipe_exits_0() {
    let (code, _, stderr) = tracelab(&["ingest", "--no-such-flag"]);
    assert_eq!(code, 2, "{stderr}");
    for verb in ["ingest", "report"] {
        let (code, _, stderr) = tracelab(&[verb, "/definitely/not/here"]);
        assert_eq!(code, 2, "{verb}: {stderr}");
        assert!(stderr.contains("/definitely/not/here: not a directory"), "{verb}: {stderr}");
    }
    let (code, _, stderr) = tracelab(&["synth", "pai", "--scale", "0"]);
    assert_eq!(code, 2, "{stderr}");
    // `tracelab schema | head -1`: the reader goes away early.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_tracelab"))
        .args(["schema", "all", "--format", "json"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}
