//! Every verb's `--help`, whole: help texts are part of the interface, so
//! any change to one shows up in review as a change to its inline snapshot
//! (insta; docs/testing.md says how to update them).

use crate::common::*;

/// `tracelab <args> --help`: printed on stdout, exit code 0.
fn help(args: &[&str]) -> String {
    tracelab_ok(&[args, &["--help"]].concat())
}

#[test]
fn top() {
    insta::assert_snapshot!(help(&[]), @r###"
    Turn public GPU-cluster job traces (Alibaba PAI gpu-v2020, Microsoft Philly, SenseTime Helios) into
    normalized Parquet, analyses and figures

    Usage: tracelab <COMMAND>

    Commands:
      analyze      Run a named analysis over an ingested store.
      ingest       Read the official trace downloads in DIR into a Parquet store.
      schema       Print the canonical tables tracelab writes.
      synth        Generate synthetic traces in the owners' raw formats.
      tables       List the tables of the store that SQL queries can read.
      query        Run SQL over the store: ad hoc, from a file, or a named query.
      report       Render the papers' figures from the traces in DIR as an HTML report.
      simulate     Replay a trace under scheduling policies.
      export       Write a trace's jobs in a simulator's input format.
      completions  Print a shell completion script.
      man          Write the man pages: tracelab(1) and one per verb.
      help         Print this message or the help of the given subcommand(s)

    Options:
      -h, --help     Print help
      -V, --version  Print version
    "###);
}

#[test]
fn ingest() {
    insta::assert_snapshot!(help(&["ingest"]), @r###"
    Read the official trace downloads in DIR into a Parquet store.

    Finds which traces DIR holds (PAI pai_*_table files or their .tar.gz,
    Philly cluster_* files or trace-data.tar.gz, Helios <Cluster>/ folders
    or data.zip, AcmeTrace trace_seren.csv / trace_kalos.csv, the Alibaba
    spot-GPU trace's job_info_df.csv / node_info_df.csv (these four also
    gzipped or as <stem>.tar.gz), Standard Workload Format logs *.swf or
    *.swf.gz, one cluster of the swf trace per file), validates every
    record, and
    writes one Parquet file per canonical table to <STORE>/<trace>/,
    rejected records to <STORE>/<trace>/rejects.parquet, and the unified
    cross-trace table to <STORE>/jobs.parquet. Unchanged inputs are not
    read again.

    Cost: about one pass over the input (streaming, bounded memory). The
    store is locked while ingest writes it: another ingest, or a command
    reading the store, waits for it (with a note) and then goes on.

    Examples:
      tracelab ingest data-samples
      tracelab ingest ~/traces --out ~/tl-store --strict

    Usage: tracelab ingest [OPTIONS] [DIR]

    Arguments:
      [DIR]
              Directory holding one or more traces as downloaded [default: the bundled data-samples/]

    Options:
          --out <STORE>
              Where to write the store [default: <DIR>/.tracelab]

          --strict
              Exit with status 1 if any record was rejected

          --force
              Ingest again even if the inputs are unchanged

      -q, --quiet
              No progress bar and no summary; errors are still printed

          --max-record-bytes <BYTES>
              The longest CSV line or Philly job accepted; a longer CSV line is rejected without being
              held in memory, a longer job stops the ingest
              
              [default: 1048576]

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn schema() {
    insta::assert_snapshot!(help(&["schema"]), @r###"
    Print the canonical tables tracelab writes.

    Columns, types, units, unique keys and meaning of every table of the
    store. `docs/schema.md` is this output in Markdown.

    Output: a table (one row per column) on a terminal, csv when piped;
    text, markdown and json are the reference document.

    Examples:
      tracelab schema pai
      tracelab schema all --format markdown > docs/schema.md

    Usage: tracelab schema [OPTIONS] [WHICH]

    Arguments:
      [WHICH]
              Which tables: a trace, `jobs` (the unified table) or `all`
              
              [default: all]
              [possible values: all, pai, philly, helios, swf, acme, spot, jobs]

    Options:
          --format <FORMAT>
              Output format [default: table on a terminal, csv when piped]

              Possible values:
              - table:    One row per column, aligned
              - csv:      One row per column, CSV
              - json:     The document as JSON: tables with their columns
              - jsonl:    One row per column, JSON lines
              - parquet:  One row per column, Parquet (needs -o)
              - markdown: The document as Markdown (docs/schema.md)
              - text:     The document as plain text

      -o, --output <FILE>
              Write to FILE instead of stdout (the extension gives the format)

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn synth() {
    insta::assert_snapshot!(help(&["synth"]), @r###"
    Generate synthetic traces in the owners' raw formats.

    Byte-for-byte the owners' layouts, calibrated to the published numbers,
    at any scale, from a seed.

    --scale 1 is the size of the real trace (PAI about 3.8 GB of CSV, Philly
    about 6.6 GB, Helios 3.36 M jobs, AcmeTrace 1.09 M jobs, the spot-GPU
    trace 467 k jobs on 4,278 nodes); 0.01 is a hundredth. The same seed
    gives byte-identical files. Each trace folder also gets the real
    inventory tables (PAI machines, Philly machine list, Helios VC GPUs).

    Examples:
      tracelab synth pai --scale 0.01 --seed 7 --out /tmp/pai-small
      tracelab synth all --scale 1 --out /tmp/full
      tracelab synth philly --scale 0.1 --archive
      tracelab synth helios --scale 0.001 --corrupt 0.01 --out /tmp/bad
      tracelab synth acme --scale 0.003 --out /tmp/acme
      tracelab synth spot --scale 0.005 --out /tmp/spot

    Usage: tracelab synth [OPTIONS] <TRACE>

    Arguments:
      <TRACE>
              Which trace (`all` writes <OUT>/pai, <OUT>/philly, <OUT>/helios, <OUT>/acme, <OUT>/spot)
              
              [possible values: pai, philly, helios, acme, spot, all]

    Options:
          --scale <SCALE>
              Size relative to the real trace
              
              [default: 0.01]

          --seed <SEED>
              Random seed; the same seed gives the same files
              
              [default: 1]

          --out <OUT>
              Output folder [default: synthetic-<trace>]

          --archive
              Also pack the files as downloaded (PAI per-table .tar.gz, Philly trace-data.tar.gz, Helios
              data.zip; AcmeTrace and the spot-GPU trace ship plain CSVs, so nothing more is written for
              them)

          --corrupt <RATE>
              Corrupt this fraction of rows (and cut the last line of every file); the faults are listed
              in corruptions.csv

          --no-cpu-contention
              Do not plant the CPU-contention slowdown (PAI)

          --no-colocation
              Do not plant the co-location slowdown (PAI)

          --format <FORMAT>
              Output format [default: table on a terminal, csv when piped; with -o, from its extension]

              Possible values:
              - table:    An aligned table (control characters in the data shown escaped)
              - csv:      RFC 4180 CSV with a header row
              - json:     A JSON array, one object per row
              - jsonl:    One JSON object per line
              - parquet:  A Parquet file (needs -o)
              - markdown: A Markdown (pipe) table

      -o, --output <FILE>
              Write to FILE instead of stdout; the extension gives the format (.csv .json .jsonl
              .parquet .md .txt); `-` is stdout

      -q, --quiet
              Print nothing but errors

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn analyze() {
    insta::assert_snapshot!(help(&["analyze"]), @r###"
    Run a named analysis over an ingested store.

    Every analysis mirrors a paper figure or notebook cell (or says it is
    tracelab's own) and prints its definition: tables, filters, joins,
    units, and which upstream convention it follows. Where the paper or
    notebook printed a number, it is shown beside ours.

    Without --store, the bundled data-samples/ are used (ingested on first
    use). The replay views `sim.*` (docs/simulate.md) run here too; without
    --param trace=... they replay the store's only trace (of several: pai if
    the store holds it, else a list of them), as `simulate` does.

    Examples:
      tracelab analyze --list
      tracelab analyze pai.machine-util --describe
      tracelab analyze pai.wait-by-gpu-type
      tracelab analyze pai.machine-util --param bin=5m --format json
      tracelab analyze pai.wait-by-gpu-type --format csv > wait.csv
      tracelab analyze philly.gpu-util-by-status --store ~/tl-store --part by-size -o by-size.parquet
      tracelab analyze sim.by-class --param trace=spot --param policies=fifo,priority

    Output: on a terminal the definition and a table per part; piped or
    with --format csv|jsonl|parquet one tidy table (columns: part, then
    each part's own: series, x, y for distributions and curves, a table's
    columns, key, label, value, unit, published, source for headline
    numbers); --format json the whole result with axis labels and units.

    Usage: tracelab analyze [OPTIONS] [ID]

    Arguments:
      [ID]
              The analysis id (see --list)

    Options:
          --list
              List every analysis: id, trace, paper figure, parameters, one line

          --describe
              Print the analysis's definition (Markdown: what it computes, its parameters, the published
              values it is compared with, where it differs from the owners' code) for the --param values
              given, without running it; without an id, all of docs/definitions.md

          --store <STORE>
              The store to read: the folder `tracelab ingest` or `report` wrote, or the folder of traces
              they were given (its .tracelab store is used) [default: data-samples/.tracelab, ingested
              on first use]

          --format <FORMAT>
              Output format [default: table on a terminal, csv when piped; with -o, from its extension]

              Possible values:
              - table:    An aligned table (control characters in the data shown escaped)
              - csv:      RFC 4180 CSV with a header row
              - json:     A JSON array, one object per row
              - jsonl:    One JSON object per line
              - parquet:  A Parquet file (needs -o)
              - markdown: A Markdown (pipe) table

      -o, --output <FILE>
              Write to FILE instead of stdout; the extension gives the format (.csv .json .jsonl
              .parquet .md .txt); `-` is stdout

      -p, --param <NAME=VALUE>
              A parameter of the analysis, NAME=VALUE (repeatable, each name once; see --list)

          --part <PART>
              Only this part of the result (every format)

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn report() {
    insta::assert_snapshot!(help(&["report"]), @r###"
    Render the papers' figures from the traces in DIR as an HTML report.

    Ingests DIR (cached: unchanged inputs are not read again), runs every
    analysis the specs name, and writes OUT/index.html (what the data is,
    figures with captions, headline numbers beside the published ones, the
    input manifest), OUT/summary.md, OUT/summary.json and per figure an SVG
    and a CSV of its points (PNG and PDF with --formats). The specs are
    notebooks-equivalents/{pai-nsdi22,philly-atc19,helios-sc21,
    cross-trace}.toml (built in). Any subset of the three traces works: a
    spec, figure or series whose trace is not in the store (or not in
    --only) is skipped with a note in the report and on stderr, and
    cross-trace figures are drawn with the traces there are. The output
    depends only on the inputs, the specs and the tracelab version, byte
    for byte (no dates unless --stamp). OUT is replaced whole once the new
    report is complete, and only the files tracelab wrote there are removed;
    a folder it did not write is refused (docs/output-files.md).

    Cost: the ingest (once), then every analysis once; results are cached
    in <STORE>/.cache/report, so an unchanged store re-renders in seconds.

    Examples:
      tracelab report
      tracelab report ~/traces --out ~/pai-report
      tracelab report ~/traces --spec notebooks-equivalents/pai-nsdi22.toml
      tracelab report --only pai,philly --out /tmp/pai-philly
      tracelab report --formats svg,png,pdf --out /tmp/paper-figures
      tracelab report --check

    Usage: tracelab report [OPTIONS] [DIR]

    Arguments:
      [DIR]
              Directory holding the traces as downloaded [default: the bundled data-samples/]

    Options:
          --out <OUT>
              The report folder [default: reports for the bundled data-samples/, else
              DIR/tracelab-report (with only --store: beside the store); the folder is named on stderr].
              It is replaced whole when the new report is complete; a folder tracelab did not write is
              refused

          --store <STORE>
              The store to read or ingest into [default: <DIR>/.tracelab]; with --store and no DIR the
              store is read as it is. A folder of traces holding a .tracelab store stands for that
              store, as in the other verbs

          --spec <FILE>
              A spec to render instead of the built-in ones (repeatable)

          --max-figures <N>
              The most figures one spec may hold; each costs its rendering time and memory [default:
              500]

          --only <TRACES>
              Report on these traces only, as if the store held nothing else (comma-separated) [default:
              every trace in the store]
              
              [possible values: pai, philly, helios, swf, acme, spot]

          --formats <FORMATS>
              Figure formats to write (comma-separated); svg (with the CSV of the plotted points) is
              always written, png (2x) and pdf are drawn from the same SVG
              
              [default: svg]
              [possible values: svg, png, pdf]

          --check
              Regenerate (without the cache) and compare with OUT byte for byte; exit 1 listing every
              difference, writing nothing

          --no-cache
              Neither read nor write the result cache

          --stamp
              Print the generation time (UTC) in index.html

      -j, --jobs <N>
              Analyses run side by side [default: the number of cores]; the report's bytes do not depend
              on it

          --memory-budget <GIB>
              Memory the analyses running side by side may hold together, in GiB, by their declared
              estimates; an analysis estimated above it runs alone [default: 2.5]

      -q, --quiet
              No progress lines

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn simulate() {
    insta::assert_snapshot!(help(&["simulate"]), @r###"
    Replay a trace under scheduling policies.

    Answers "what would policy X have done on this trace?": the jobs of an
    ingested trace (one job = a PAI task, a Philly job, a Helios or AcmeTrace
    job, a spot-GPU job of worker_num x gpu_request GPUs), or of a CSV job
    list, replayed by the tracelab-sim engine on the trace's own machines or
    a cluster you describe, one run per policy x placement x load.
    Prints per run: jobs done, mean/P50/P90/P99 JCT and wait, mean bounded
    slowdown, makespan, GPU utilisation, Jain's fairness over users; and every
    job left out, by reason. Semantics: docs/simulate.md.

    Without --store, the bundled data-samples/ are used (ingested on first
    use). Runs go two at a time on two threads (one at PAI scale).

    Examples:
      tracelab simulate --list
      tracelab simulate --trace philly --policy fifo,sjf,srtf,las,qssf --placement pack
      tracelab simulate --trace pai --policy fifo,sjf,sjf-predicted --placement pack,spread --out sim/
      tracelab simulate --trace philly --window busiest:8h --sample 40 --seed 1 --load 0.5,1,2
      tracelab simulate --trace helios:Venus --policy qssf --discipline strict --format json
      tracelab simulate --trace acme:Seren --policy fifo,sjf --placement pack
      tracelab simulate --trace spot --policy fifo,priority
      tracelab simulate --jobs jobs.csv --cluster 4x8 --policy fifo,sjf
      tracelab simulate --trace pai --policy exclusive,horus --cluster 2x8 --sample 2000
      tracelab simulate --trace pai --online 8 --policy time-sharing,muxflow --cluster 2x8
      tracelab simulate --jobs artifact:6 --policy pollux,optimus,tiresias
      tracelab simulate --trace philly --recipe pollux --sample 160 --policy pollux --load 0.5,1,2

    Usage: tracelab simulate [OPTIONS]

    Options:
          --list
              List every policy, discipline, placement, predictor and option with the paper or simulator
              it mirrors

          --store <STORE>
              The store to read: the folder `tracelab ingest` or `report` wrote, or the folder of traces
              they were given (its .tracelab store is used) [default: data-samples/.tracelab, ingested
              on first use]

          --trace <TRACE>
              pai, philly, helios or helios:CLUSTER (Earth, Saturn, Uranus, Venus), acme or acme:CLUSTER
              (Seren, Kalos), spot [default: the store's only trace; of several, pai if the store holds
              it, else a list of them]

          --jobs <FILE.csv>
              Replay this CSV job list instead (columns submit_s, duration_s, gpus and optionally
              job_id, cpus, user, vc, group, gpu_type, gpu_util, gpu_mem_gib, class)

          --policy <LIST>
              Policies, comma-separated (see --list)
              
              [default: fifo]

          --placement <LIST>
              Placements, comma-separated (see --list)
              
              [default: pack]
              [possible values: pack, spread, first-fit, random, least-shared]

          --discipline <DISCIPLINE>
              strict (head-of-line blocking), greedy (start all that fit) or easy (backfilling)
              
              [default: greedy]
              [possible values: strict, greedy, easy]

          --predictor <PREDICTOR>
              The history key of sjf-predicted
              
              [default: group]
              [possible values: user, group, user-gpu-type]

          --fair-by <FAIR_BY>
              Whose share `fair` balances
              
              [default: vc]
              [possible values: vc, user]

          --preempt-overhead <PREEMPT_OVERHEAD>
              Cost of a preemption (srtf, las): helios (7 s / 30 s / 60 s by GPUs), none, or a duration
              such as 30s
              
              [default: helios]

          --share-slowdown <SHARE_SLOWDOWN>
              Progress of jobs sharing a GPU slows by this factor (>= 1)
              
              [default: 1]

          --interference <INTERFERENCE>
              How the classic policies' fractional jobs slow each other on a shared GPU: constant
              (--share-slowdown) or utilization (the interference model of docs/sharing.md, from each
              job's GPU utilization). Elastic replays (pollux, optimus, tiresias): the slowdown (0 to
              <1) of a multi-node job sharing a node with another, comma-separated for a sweep (Pollux:
              0, 0.25, 0.5; `constant` counts as 0)
              
              [default: constant]

          --online <N>
              Add N online services (MuxFlow's latency-critical jobs) of one GPU each, running for the
              whole replay; the trace's jobs are offline
              
              [default: 0]

          --online-util <PCT>
              The online services' mean GPU utilization, % (MuxFlow: 26 % before sharing)
              
              [default: 26]

          --online-mem <GIB>
              The online services' GPU memory, GiB
              
              [default: 2]

          --online-profile <SOURCE>
              The online load over a day: trace (the trace's measured utilization; the default for a
              trace), flat (the default for --jobs), or a CSV file of offset_s,load rows

          --default-gpu-util <PCT>
              GPU utilization (%) of a job whose trace measured none
              
              [default: 50]

          --default-gpu-mem <GIB>
              GPU memory (GiB per GPU) of a job whose trace measured none
              
              [default: 2]

          --max-tenants <N>
              Most jobs on one GPU under the sharing policies
              
              [default: 4]

          --online-bound <F>
              The online slowdown muxflow never lets pass (> 1; 1.2 = 20 %)
              
              [default: 1.2]

          --window <WINDOW>
              FROM..TO (RFC 3339 or offsets from the trace start, e.g. 3h..11h), busiest:DURATION, or
              all
              
              [default: all]

          --sample <N>
              Take N jobs of the window, drawn uniformly without replacement

          --seed <SEED>
              Seed of --sample (and of simulate's random placement)
              
              [default: 1]

          --load <LIST>
              Load factors, comma-separated: submission times from the window start divided by each
              
              [default: 1]

          --cluster <CLUSTER>
              from-trace, NODESxGPUS (e.g. 100x8) or a .toml file of [[group]] tables
              
              [default: from-trace]

          --max-nodes <N>
              Ceiling on the cluster's nodes (all partitions): a replay holds about 130 bytes per node.
              At most 2147483647
              
              [default: 1000000]

          --max-gpus <N>
              Ceiling on the cluster's GPUs (all partitions): about 30 bytes per GPU. At most 4294967295
              
              [default: 10000000]

          --unplaceable <UNPLACEABLE>
              A job the cluster can never hold: skip (count it as left out) or error [default: skip with
              from-trace, error otherwise]
              
              [possible values: skip, error]

          --until <DURATION>
              Stop the replay this long after the window start (e.g. 12h); unfinished jobs are counted

          --out <DIR>
              Also write jobs.parquet (one row per job and run), series.parquet, summary.csv,
              left-out.csv and result.json into this folder (created if missing; each file replaced
              whole, other files left alone)

          --format <FORMAT>
              Output format [default: table on a terminal, csv when piped; with -o, from its extension]

              Possible values:
              - table:    An aligned table (control characters in the data shown escaped)
              - csv:      RFC 4180 CSV with a header row
              - json:     A JSON array, one object per row
              - jsonl:    One JSON object per line
              - parquet:  A Parquet file (needs -o)
              - markdown: A Markdown (pipe) table

      -o, --output <FILE>
              Write to FILE instead of stdout; the extension gives the format (.csv .json .jsonl
              .parquet .md .txt); `-` is stdout

          --threads <THREADS>
              Replays run at the same time; each holds its own engine state (about 0.4 KB per job), so
              the default is 2, or 1 above 250,000 jobs

          --recipe <NAME>
              With --trace: build the workload by a named recipe. `pollux`: Pollux's generator (jobs of
              at least 60 s under 1,000 GPU-hours submitted at hours [--start, --start + --duration) of
              every day, applications by GPU-hours; --sample jobs, default 160)
              
              [possible values: pollux]

          --start <START>
              Recipe: hours to shift submissions back before taking hours of the day
              
              [default: 2]

          --duration <DURATION>
              Recipe: hours of the day kept
              
              [default: 8]

          --realistic
              Recipe: keep the trace's GPU counts (smallest batch per GPU) instead of TunedJobs
              configurations

          --tuned
              Recipe: TunedJobs configurations (the default)

          --interval <LIST>
              Elastic: time between scheduling rounds, comma-separated for a sweep (e.g. 30s,1m,2m)
              
              [default: 60s]

          --restart-delay <RESTART_DELAY>
              Elastic: time a job restarts after each re-allocation
              
              [default: 30s]

          --no-interference-avoidance
              Elastic: let pollux put two multi-node jobs on one node (Fig 8c's "no avoidance")

          --fairness-p <FAIRNESS_P>
              Elastic: fairness exponent p of pollux's generalised mean (<= 1)
              
              [default: -1]

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn export() {
    insta::assert_snapshot!(help(&["export"]), @r###"
    Write a trace's jobs in a simulator's input format.

    The jobs are those `tracelab simulate` replays (one job = a PAI task, a
    Philly job, a Helios or AcmeTrace job, a spot-GPU job; unfinished, CPU-only and undated jobs are
    left
    out), after --window and --sample. Every selected job is written; stderr
    gets the accounting of every row of the trace and the format's mapping
    notes. Formats (semantics in docs/export.md):
      swf         Standard Workload Format 2.2 (Batsim, Slurm simulators, evalys); a processor = a GPU
      pai-sim     the CSV of the PAI simulator (alibaba/clusterdata cluster-trace-gpu-v2020/simulator)
      helios-sim  the cluster_log.csv of HeliosArtifact's QSSF framework
      pollux      the workload CSV of the Pollux simulator (a mapping: applications by GPU-hours;
                  with --recipe pollux, the jobs Pollux's own generator draws)

    Without --store, the bundled data-samples/ are used (ingested on first
    use). The output is deterministic: the same store and options give the
    same bytes.

    Examples:
      tracelab export --trace philly --recipe pollux --sample 160 --seed 1 --to pollux -o pollux.csv
      tracelab export --trace philly --window busiest:8h --sample 160 --seed 1 --to pollux -o
      busiest.csv
      tracelab export --trace helios:Venus --to swf -o venus.swf --ids venus-ids.csv
      tracelab export --trace pai --to pai-sim -o pai_jobs.csv
      tracelab export --trace helios:Venus --to helios-sim -o cluster_log.csv --force
      tracelab export --trace philly --to swf -o - | head
      tracelab export --trace spot --to swf -o spot.swf

    Usage: tracelab export [OPTIONS] --to <FORMAT> --output <FILE>

    Options:
          --store <STORE>
              The store to read: the folder `tracelab ingest` or `report` wrote, or the folder of traces
              they were given (its .tracelab store is used) [default: data-samples/.tracelab, ingested
              on first use]

          --trace <TRACE>
              pai, philly, helios or helios:CLUSTER (Earth, Saturn, Uranus, Venus), acme or acme:CLUSTER
              (Seren, Kalos), spot [default: the store's only trace]

          --window <WINDOW>
              FROM..TO (RFC 3339 or offsets from the trace start, e.g. 3h..11h), busiest:DURATION, or
              all
              
              [default: all]

          --sample <N>
              Take N jobs of the window, drawn uniformly without replacement

          --seed <SEED>
              Seed of --sample (and of simulate's random placement)
              
              [default: 1]

          --to <FORMAT>
              The simulator's format (described above)
              
              [possible values: swf, pai-sim, helios-sim, pollux]

      -o, --output <FILE>
              The file to write; - for stdout

          --force
              Replace FILE (and the --ids file) if it is a regular file; a link, folder or device is
              never replaced

          --ids <FILE.csv>
              swf only: also write the numbering (CSV kind,number,name: every job's trace id and the
              names of the user, group, queue and partition numbers)

          --recipe <NAME>
              pollux only: draw the jobs as Pollux's generator does instead of --window (at least 60 s,
              under 1,000 GPU-hours, submitted at hours [--start, --start + --duration) of every day,
              placed at their time of day; --sample jobs, default 160; TunedJobs GPUs and batch sizes)
              
              [possible values: pollux]

          --start <START>
              --recipe: hours to shift submissions back before taking hours of the day
              
              [default: 2]

          --duration <DURATION>
              --recipe: hours of the day kept
              
              [default: 8]

          --realistic
              --recipe: the trace's GPU counts instead of TunedJobs configurations

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn query() {
    insta::assert_snapshot!(help(&["query"]), @r###"
    Run SQL over the store: ad hoc, from a file, or a named query.

    QUERY is SQL text or the name of a named query (`--list` shows them).
    The engine is Apache DataFusion with PostgreSQL's semantics where
    engines differ: integer division (a note on stderr says where), NULLs
    sorting last ascending and first descending, exact percentile_cont,
    rounding casts to integers (queries/README.md lists the few remaining
    differences). Tables have stable names (`tracelab tables` lists them:
    pai_instances, philly_attempts, helios_jobs, the unified jobs, ...) and
    are read as Parquet scans, so a query reads only the columns and row
    groups it needs. Queries are read-only: one SELECT / WITH ... SELECT
    that reads only the store's tables, its CTEs and subqueries; other
    statements, table functions (read_parquet, read_csv, ...) and
    qualified names are refused. Quote the columns "user" and "group",
    which are SQL keywords.

    Ceilings: a query text of at most 1 MiB and 1,000 levels of nested
    expression; a text value built by a string function (lpad, repeat,
    concat, ...) of at most 16 MiB; and --memory-limit for the rows a sort,
    grouping or join holds, past which it spills to temporary files.

    Output: a table on a terminal, csv when piped (or from the extension
    of -o); floats are rounded to 12 significant digits (6 in the table),
    timestamps are RFC 3339 UTC, durations are seconds; control characters
    in the data are shown escaped in the table.

    A named query's `trace` parameter, when not given and its default is a
    trace the store does not hold, is the store's only trace.

    Examples:
      tracelab query "SELECT vc, count(*) AS jobs FROM philly_jobs GROUP BY vc ORDER BY 2 DESC LIMIT 5"
      tracelab query --list
      tracelab query top-users-by-gpu-hours --param trace=helios
      tracelab query -f queries/top-users-by-gpu-hours.sql --format csv > out.csv
      tracelab query "SELECT * FROM pai_machines" -o machines.parquet
      tracelab query busiest-windows --param trace=pai --sql

    Usage: tracelab query [OPTIONS] [QUERY]

    Arguments:
      [QUERY]
              SQL text, or the name of a named query

    Options:
      -f, --file <FILE>
              Read the SQL from FILE (`-` for stdin); a header comment as in queries/ declares its
              parameters

          --list
              List the named queries: name, question, tables and parameters

      -p, --param <NAME=VALUE>
              A parameter of the named query or file, NAME=VALUE (repeatable, each name once)

          --format <FORMAT>
              Output format [default: table on a terminal, csv when piped; with -o, from its extension]

              Possible values:
              - table:    An aligned table (control characters in the data shown escaped)
              - csv:      RFC 4180 CSV with a header row
              - json:     A JSON array, one object per row
              - jsonl:    One JSON object per line
              - parquet:  A Parquet file (needs -o)
              - markdown: A Markdown (pipe) table

      -o, --output <FILE>
              Write to FILE instead of stdout; the extension gives the format (.csv .json .jsonl
              .parquet .md .txt); `-` is stdout

          --sql
              Print the SQL that would run (parameters substituted) and stop

          --memory-limit <SIZE>
              Memory for the rows sorts, groupings and joins hold (e.g. 2GiB, 512MiB); past it they
              spill to temporary files [default: half the machine's memory]

          --store <STORE>
              The store to read: the folder `tracelab ingest` or `report` wrote, or the folder of traces
              they were given (its .tracelab store is used) [default: data-samples/.tracelab, ingested
              on first use]

      -h, --help
              Print help (see a summary with '-h')
    "###);
}

#[test]
fn tables() {
    insta::assert_snapshot!(help(&["tables"]), @r###"
    List the tables of the store that SQL queries can read.

    Without NAME, one row per table present: its SQL name (as used by
    `tracelab query`), trace, rows, columns and file size. With NAME, one
    row per column of that table: type, unit, nulls and meaning.
    Cost: reads only the Parquet footers.

    Output: a table on a terminal, csv when piped (or from the extension
    of -o).

    Examples:
      tracelab tables
      tracelab tables philly_jobs
      tracelab tables --format csv > tables.csv

    Usage: tracelab tables [OPTIONS] [NAME]

    Arguments:
      [NAME]
              One table's SQL name, e.g. pai_instances

    Options:
          --format <FORMAT>
              Output format [default: table on a terminal, csv when piped; with -o, from its extension]

              Possible values:
              - table:    An aligned table (control characters in the data shown escaped)
              - csv:      RFC 4180 CSV with a header row
              - json:     A JSON array, one object per row
              - jsonl:    One JSON object per line
              - parquet:  A Parquet file (needs -o)
              - markdown: A Markdown (pipe) table

      -o, --output <FILE>
              Write to FILE instead of stdout; the extension gives the format (.csv .json .jsonl
              .parquet .md .txt); `-` is stdout

          --store <STORE>
              The store to read: the folder `tracelab ingest` or `report` wrote, or the folder of traces
              they were given (its .tracelab store is used) [default: data-samples/.tracelab, ingested
              on first use]

      -h, --help
              Print help (see a summary with '-h')
    "###);
}
