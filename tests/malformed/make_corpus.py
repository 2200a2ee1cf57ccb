"""Writes the malformed-input corpus: one folder per case with `input/` (a trace directory)
and `expect.json` (exit code, error text, and the exact rejects, worked out by hand).

Run: python3 tests/malformed/make_corpus.py (rewrites every case folder beside it).
"""
import json, os, io, gzip, tarfile, zipfile, shutil
root = os.path.dirname(os.path.abspath(__file__))
for entry in os.listdir(root):
    if os.path.isdir(os.path.join(root, entry)):
        shutil.rmtree(os.path.join(root, entry))

JOB = ["j1,i1,u1,Terminated,100.0,200.0", "j2,i2,u2,Failed,150.0,400.0", "j3,i3,u1,Running,300.0,"]
TASK = ["j1,worker,2.0,Terminated,100.0,200.0,600.0,29.296875,50.0,T4",
        "j2,ps,1.0,Failed,150.0,400.0,400.0,10.0,,",
        "j3,tensorflow,1.0,Running,300.0,,600.0,29.296875,100.0,V100"]
INST = ["j1,worker,n1,w1,i1,Terminated,110.0,190.0,m1",
        "j1,worker,n2,w2,i1,Terminated,110.0,195.0,m2",
        "j2,ps,n3,w3,i2,Failed,160.0,390.0,m1",
        "j3,tensorflow,n4,w4,i3,Running,310.0,,m3"]

def pai(job=JOB, task=TASK, inst=INST, extra=None):
    files = {"pai_job_table.csv": "\n".join(job) + "\n",
             "pai_task_table.csv": "\n".join(task) + "\n",
             "pai_instance_table.csv": "\n".join(inst) + "\n"}
    files.update(extra or {})
    return files

PJOBS = [
 {"status": "Pass", "vc": "ee9e8c", "jobid": "application_1_1", "attempts": [
   {"start_time": "2017-10-07 01:12:09", "end_time": "2017-10-07 01:13:23", "detail": [{"ip": "m47", "gpus": ["gpu0", "gpu1"]}]}],
  "submitted_time": "2017-10-07 01:11:39", "user": "ce2f4c"},
 {"status": "Killed", "vc": "ee9e8c", "jobid": "application_1_2", "attempts": [],
  "submitted_time": "2017-10-07 02:00:00", "user": "ce2f4c"},
 {"status": "Failed", "vc": "6214e9", "jobid": "application_1_3", "attempts": [
   {"start_time": "2017-10-07 03:00:00", "end_time": None, "detail": [{"ip": "m12", "gpus": ["gpu3"]}]}],
  "submitted_time": "2017-10-07 02:59:00", "user": "aa11bb"},
]

def job_log(jobs):
    # README layout: `[`, then each job pretty-printed with 4-space indent, `},` between jobs.
    parts = [json.dumps(j, indent=4) for j in jobs]
    return "[\n" + ",\n".join(parts) + "\n]\n"

def start_lines(jobs):
    text = job_log(jobs)
    lines = text.split("\n")
    return [i + 1 for i, l in enumerate(lines) if l == "{"]

GPU = ["time,machineId,gpu0_util,gpu1_util,gpu2_util,gpu3_util,gpu4_util,gpu5_util,gpu6_util,gpu7_util",
       "2017-10-03 00:08:00 PDT,m29,60.8,99.366666667,100.0,63.333333333,100.0,100.0,100.0,100.0,",
       "2017-10-03 00:09:00 PDT,m29,61.0,NA,NA,NA,NA,NA,NA,NA,",
       "2017-11-05 01:30:00 PST,m29,10.0,20.0,30.0,40.0,50.0,60.0,70.0,80.0,"]

def philly(jobs=PJOBS, gpu=GPU, log_text=None):
    return {"cluster_job_log": log_text if log_text is not None else job_log(jobs),
            "cluster_gpu_util": "\n".join(gpu) + "\n"}

HLOG = ["job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue",
        "1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0",
        "1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0",
        "1425513,uzqls,vcpDC,1,1,1,CANCELLED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0"]
HGPU = ["date,vcA,vcB,total", "2020-04-01,8,16,24", "2020-04-02,8,16,24"]

def helios(log=HLOG, gpu=HGPU):
    return {"Venus/cluster_log.csv": "\n".join(log) + "\n", "Venus/cluster_gpu_number.csv": "\n".join(gpu) + "\n"}

def rej(table, file, line, column, reason):
    return {"table": table, "file": file, "line": line, "column": column, "reason_contains": reason}

cases = {}
def case(name, files, desc, exit=0, rejects=(), error=None, strict=False):
    cases[name] = (files, {"description": desc, "exit": exit, "strict": strict, "rejects": list(rejects), "error_contains": error})

# --- PAI
case("pai-wrong-field-count", pai(job=JOB[:1] + ["j2,i2,u2,Failed,150.0"] + JOB[2:]),
     "a job row with 5 of 6 fields", rejects=[rej("job", "pai_job_table.csv", 2, "*", "expected 6 comma-separated fields, found 5")])
case("pai-non-numeric", pai(task=TASK[:1] + ["j2,ps,1.0,Failed,150.0,400.0,lots,10.0,,"] + TASK[2:]),
     "plan_cpu is not a number", rejects=[rej("task", "pai_task_table.csv", 2, "plan_cpu", "expected a number")])
case("pai-end-before-start", pai(inst=INST[:2] + ["j2,ps,n3,w3,i2,Failed,390.0,160.0,m1"] + INST[3:]),
     "an instance that ends before it starts", rejects=[rej("instance", "pai_instance_table.csv", 3, "end_time", "end before start")])
case("pai-unknown-status", pai(job=["j1,i1,u1,Done,100.0,200.0"] + JOB[1:]),
     "job status outside Running/Terminated/Failed/Waiting", rejects=[rej("job", "pai_job_table.csv", 1, "status", "unknown code")])
case("pai-duplicate-key", pai(job=JOB + ["j2,i9,u9,Terminated,500.0,600.0"]),
     "job_name j2 appears twice; the first is kept", rejects=[rej("job", "pai_job_table.csv", 4, "job_name", "duplicate key")])
case("pai-truncated-last-line", {**pai(), "pai_task_table.csv": "\n".join(TASK[:2]) + "\n" + "j3,tensorflow,1.0,Runn"},
     "the task file ends in the middle of a row", rejects=[rej("task", "pai_task_table.csv", 3, "*", "truncated last line")])
case("pai-fractional-inst-num", pai(task=TASK[:2] + ["j3,tensorflow,1.5,Running,300.0,,600.0,29.296875,100.0,V100"]),
     "inst_num 1.5 is not a whole number", rejects=[rej("task", "pai_task_table.csv", 3, "inst_num", "whole number")])
case("pai-bad-utf8", {**pai(), "pai_job_table.csv": ("\n".join(JOB[:2]) + "\nj3,i3,u\xff1,Running,300.0,\n")},
     "a byte sequence that is not UTF-8", rejects=[rej("job", "pai_job_table.csv", 3, "*", "not valid UTF-8")])
case("pai-header-mismatch", pai(extra={"pai_job_table.header": "job_name,user,status,start_time,end_time\n"}),
     "the .header beside the table describes another layout", exit=1, error="pai_job_table.header: unknown layout")
case("pai-unknown-layout", pai(job=["a,b,c,d,e,f,g,h"] * 3),
     "every job row has 8 fields: not the PAI job table", exit=1, error="pai_job_table.csv: unknown layout: expected 6")
case("pai-missing-instance-table", {k: v for k, v in pai().items() if "instance" not in k},
     "the instance table is absent", exit=1, error="pai_instance_table.csv: missing")
def truncated_targz(name, text):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as g, tarfile.open(fileobj=g, mode="w") as t:
        data = (text * 200).encode()
        info = tarfile.TarInfo(name); info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    return buf.getvalue()[: len(buf.getvalue()) // 2]
case("pai-corrupt-archive", {**{k: v for k, v in pai().items() if "job_table" not in k}, "pai_job_table.tar.gz": truncated_targz("pai_job_table.csv", "\n".join(JOB) + "\n")},
     "the job table's .tar.gz is cut short", exit=1, error="pai_job_table.tar.gz: corrupt or truncated archive")
def tar_bytes(members):
    """An uncompressed tar of (name, bytes) members, deterministic (mtime 0)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, data in members:
            info = tarfile.TarInfo(name); info.size = len(data); info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()
def gz(data):
    return gzip.compress(data, mtime=0)
no_job = {k: v for k, v in pai().items() if "job_table" not in k}
case("pai-time-out-of-range", pai(job=JOB[:1] + ["j2,i2,u2,Failed,9300000000000.0,9250000000000.0"] + JOB[2:]),
     "offsets beyond the microsecond timestamps (they saturated, and the end-before-start check passed)",
     rejects=[rej("job", "pai_job_table.csv", 2, "start_time", "out of range")])
case("pai-negative-plan-gpu", pai(task=TASK[:1] + ["j2,ps,1.0,Failed,150.0,400.0,400.0,10.0,-50.0,"] + TASK[2:]),
     "a negative GPU request", rejects=[rej("task", "pai_task_table.csv", 2, "plan_gpu", "non-negative")])
case("pai-key-with-separator", pai(task=["j1\x1fx,worker,2.0,Terminated,100.0,200.0,600.0,29.296875,50.0,T4",
                                        "j1,x\x1fworker,1.0,Failed,150.0,400.0,400.0,10.0,,"]),
     "two different (job, task) keys that joined with U+001F would be the same; both are kept")
case("pai-empty-job-table", pai(job=[]) | {"pai_job_table.csv": ""},
     "an empty job table is a failed download, as an empty Philly or Helios file is", exit=1,
     error="pai_job_table.csv: empty file")
case("pai-archive-duplicate-member", {**no_job, "pai_job_table.tar.gz": gz(tar_bytes(
        [("pai_job_table.csv", ("\n".join(JOB[:2]) + "\n").encode()), ("pai_job_table.csv", (JOB[2] + "\n").encode())]))},
     "the job table's archive holds the table twice (they were concatenated)", exit=1,
     error="pai_job_table.tar.gz!pai_job_table.csv: second copy of pai_job_table.csv in the archive")
case("pai-archive-header-not-utf8", {**no_job, "pai_job_table.tar.gz": gz(tar_bytes(
        [("pai_job_table.header", b"job_name,inst_id,\xffuser,status,start_time,end_time\n"),
         ("pai_job_table.csv", ("\n".join(JOB) + "\n").encode())]))},
     "a .header that is not UTF-8 is named as such, not as a corrupt archive", exit=1,
     error="pai_job_table.tar.gz!pai_job_table.header: not valid UTF-8")
case("pai-archive-appended", {**no_job, "pai_job_table.tar.gz":
        gz(tar_bytes([("pai_job_table.csv", ("\n".join(JOB) + "\n").encode())])) +
        gz(tar_bytes([("pai_job_table.csv", b"j9,i9,u9,Failed,1.0,2.0\n")]))},
     "a second tar archive after the first one's end (its rows would go unread)", exit=1,
     error="pai_job_table.tar.gz: data after the end of the tar archive")
case("pai-strict", pai(job=["j1,i1,u1,Done,100.0,200.0"] + JOB[1:]),
     "with --strict any reject exits 1 (the tables are still written)", exit=1, strict=True,
     rejects=[rej("job", "pai_job_table.csv", 1, "status", "unknown code")], error="--strict: 1 record(s) rejected")
case("pai-crlf-and-header-row", pai(job=["job_name,inst_id,user,status,start_time,end_time"] + JOB, extra=None) | {
     "pai_task_table.csv": "\r\n".join(TASK) + "\r\n"},
     "Windows line endings and a header row someone added are accepted")

# --- Philly
bad = [dict(PJOBS[0]), PJOBS[1], dict(PJOBS[2])]
bad[2] = dict(bad[2]); bad[2]["status"] = "Running"
case("philly-unknown-status", philly(jobs=bad), "job status outside Pass/Killed/Failed",
     rejects=[rej("jobs", "cluster_job_log", start_lines(bad)[2], "status", "unknown status")])
bad = [PJOBS[0], PJOBS[1], json.loads(json.dumps(PJOBS[2]))]
bad[2]["attempts"][0]["end_time"] = "2017-10-07 02:00:00"
case("philly-attempt-end-before-start", philly(jobs=bad), "an attempt that ends before it starts",
     rejects=[rej("jobs", "cluster_job_log", start_lines(bad)[2], "attempts[0].end_time", "end before start")])
bad = [json.loads(json.dumps(PJOBS[0])), PJOBS[1], PJOBS[2]]
bad[0]["attempts"][0]["detail"][0]["gpus"] = ["gpu0", "gpuX"]
case("philly-bad-gpu-name", philly(jobs=bad), "a GPU named gpuX",
     rejects=[rej("jobs", "cluster_job_log", start_lines(bad)[0], "attempts[0].detail[0].gpus", "GPU name like gpu3")])
bad = [PJOBS[0], PJOBS[1], PJOBS[0]]
bad = [json.loads(json.dumps(PJOBS[0])), PJOBS[1], PJOBS[2]]
bad[0]["attempts"][0]["detail"][0]["gpus"] = ["gpu0", "gpu-1"]
case("philly-negative-gpu-index", philly(jobs=bad), "a GPU named gpu-1 (it became GPU index -1)",
     rejects=[rej("jobs", "cluster_job_log", start_lines(bad)[0], "attempts[0].detail[0].gpus", "GPU name like gpu3")])
case("philly-negative-util", philly(gpu=GPU[:2] + ["2017-10-03 00:09:00 PDT,m29,-5.0,NA,NA,NA,NA,NA,NA,NA,"] + GPU[3:]),
     "a negative GPU utilization", rejects=[rej("gpu_util", "cluster_gpu_util", 3, "gpu0_util", "non-negative")])
bad = [PJOBS[0], PJOBS[1], PJOBS[0]]
case("philly-duplicate-jobid", philly(jobs=bad), "jobid listed twice",
     rejects=[rej("jobs", "cluster_job_log", start_lines(bad)[2], "job_id", "duplicate key")])
bad = [PJOBS[0], json.loads(json.dumps(PJOBS[1])), PJOBS[2]]
bad[1]["submitted_time"] = "yesterday"
case("philly-bad-time", philly(jobs=bad), "a submission time that is not a time",
     rejects=[rej("jobs", "cluster_job_log", start_lines(bad)[1], "submitted_time", "expected a time")])
case("philly-truncated-json", philly(log_text=job_log(PJOBS)[:700]), "the job log is cut in the middle",
     exit=1, error="cluster_job_log: not a complete JSON list of jobs")
case("philly-util-bad-zone", philly(gpu=GPU[:2] + ["2017-10-03 00:09:00 UTC,m29,61.0,NA,NA,NA,NA,NA,NA,NA,"] + GPU[3:]),
     "a utilization time with a zone other than PDT/PST",
     rejects=[rej("gpu_util", "cluster_gpu_util", 3, "time", "PDT or PST")])
case("philly-util-non-numeric", philly(gpu=GPU[:3] + ["2017-11-05 01:30:00 PST,m29,10.0,twenty,30.0,40.0,50.0,60.0,70.0,80.0,"]),
     "a GPU utilization that is neither a number nor NA",
     rejects=[rej("gpu_util", "cluster_gpu_util", 4, "gpu1_util", "expected a number")])
case("philly-missing-job-log", {"cluster_gpu_util": "\n".join(GPU) + "\n"}, "utilization without the job log",
     exit=1, error="cluster_job_log: missing")
case("philly-wrong-header", philly(gpu=["time,machine,gpu0"] + GPU[1:]), "the GPU file's header is not the published one",
     exit=1, error="cluster_gpu_util: unknown layout: expected the header")

# --- Helios
case("helios-bad-time", helios(log=HLOG[:2] + ["1425512,uVMrF,vchbv,4,16,1,FAILED,2020-13-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0"] + HLOG[3:]),
     "month 13", rejects=[rej("jobs", "Venus/cluster_log.csv", 3, "submit_time", "expected a time")])
case("helios-unknown-state", helios(log=HLOG[:3] + ["1425513,uzqls,vcpDC,1,1,1,EXPLODED,2020-06-09 18:41:28,2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0"]),
     "a state outside the published ones", rejects=[rej("jobs", "Venus/cluster_log.csv", 4, "state", "unknown code")])
case("helios-negative-gpus", helios(log=HLOG[:2] + ["1425512,uVMrF,vchbv,-4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,0"] + HLOG[3:]),
     "a negative GPU count", rejects=[rej("jobs", "Venus/cluster_log.csv", 3, "gpu_num", "non-negative")])
case("helios-end-before-start", helios(log=HLOG[:2] + ["1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:45:36,2020-06-09 18:41:27,249,0"] + HLOG[3:]),
     "end before start", rejects=[rej("jobs", "Venus/cluster_log.csv", 3, "end_time", "end before start")])
case("helios-total-mismatch", helios(gpu=HGPU[:2] + ["2020-04-02,8,16,25"]),
     "the total column is not the sum of the VCs", rejects=[rej("vc_gpus", "Venus/cluster_gpu_number.csv", 3, "total", "differs from the sum")])
case("helios-wrong-header", helios(log=["job_id,user,vc,gpus,state"] + HLOG[1:]), "another layout's header",
     exit=1, error="Venus/cluster_log.csv: unknown layout: expected the header")
case("helios-empty-file", {**helios(), "Venus/cluster_log.csv": ""}, "an empty log file",
     exit=1, error="Venus/cluster_log.csv: empty file")
case("helios-negative-queue", helios(log=HLOG[:2] + ["1425512,uVMrF,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 18:45:36,249,-3"] + HLOG[3:]),
     "a negative queue time", rejects=[rej("jobs", "Venus/cluster_log.csv", 3, "queue", "non-negative")])
def zip_bytes(members, method=zipfile.ZIP_DEFLATED):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", method) as z:
        for name, text in members:
            with __import__("warnings").catch_warnings():
                __import__("warnings").simplefilter("ignore")
                z.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), text, compress_type=method)
    return buf.getvalue()
log = "\n".join(HLOG) + "\n"
case("helios-zip-duplicate-path", {"data.zip": zip_bytes([("data/Venus/cluster_log.csv", "\n".join(HLOG[:2]) + "\n"),
                                                         ("data/Venus/cluster_log.csv", log)])},
     "a data.zip holding one path twice (only the later copy was read)", exit=1,
     error="data.zip: holds two members with the same path")
case("helios-zip-bzip2", {"data.zip": zip_bytes([("data/Venus/cluster_log.csv", log)], zipfile.ZIP_BZIP2)},
     "a data.zip compressed with bzip2, which tracelab does not read (it was reported as corrupt)", exit=1,
     error="data.zip!data/Venus/cluster_log.csv: uses a zip feature or compression tracelab cannot read")
case("helios-corrupt-zip", {"data.zip": "PK-not-really"}, "a data.zip that is not a zip",
     exit=1, error="data.zip: corrupt zip archive")

# SWF (Standard Workload Format v2.2): 4 header lines, then jobs on lines 5, 6, 7.
SWF = ["; Version: 2.2", "; Computer: tiny", "; UnixStartTime: 1000000000", "; TimeZoneString: Europe/Berlin",
       "1 0 10 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1",
       "2 5 0 50 8 -1 -1 8 60 -1 0 2 1 -1 1 -1 -1 -1",
       "3 7 -1 -1 -1 -1 -1 2 60 -1 5 1 2 -1 1 -1 -1 -1"]
def swf(lines=SWF):
    return {"log.swf": "\n".join(lines) + "\n"}
case("swf-wrong-field-count", swf(SWF[:5] + ["2 5 0 50 8 -1 -1 8 60 -1 0 2 1 -1 1 -1 -1"] + SWF[6:]),
     "a job record of 17 fields", rejects=[rej("jobs", "log.swf", 6, "*", "expected 18 whitespace-separated fields, found 17")])
case("swf-non-numeric", swf(SWF[:5] + ["2 5 0 fifty 8 -1 -1 8 60 -1 0 2 1 -1 1 -1 -1 -1"] + SWF[6:]),
     "a run time that is not a number", rejects=[rej("jobs", "log.swf", 6, "Run Time", "expected a whole number")])
case("swf-negative", swf(SWF[:6] + ["3 7 -5 -1 -1 -1 -1 2 60 -1 5 1 2 -1 1 -1 -1 -1"]),
     "a negative wait time other than -1 (unknown)", rejects=[rej("jobs", "log.swf", 7, "Wait Time", "negative")])
case("swf-unknown-status", swf(SWF[:4] + ["1 0 10 100 4 -1 -1 4 200 -1 9 1 1 -1 1 -1 -1 -1"] + SWF[5:]),
     "a status code the format does not define", rejects=[rej("jobs", "log.swf", 5, "Status", "unknown status")])
case("swf-duplicate-job", swf(SWF + ["2 9 0 5 1 -1 -1 1 60 -1 1 3 1 -1 1 -1 -1 -1"]),
     "a job number given twice", rejects=[rej("jobs", "log.swf", 8, "cluster+job_number+part", "duplicate key")])
case("swf-truncated-gzip", {"log.swf.gz": (lambda g: g[: len(g) // 2])(gz(("\n".join(SWF) + "\n").encode() * 50))},
     "the .swf.gz is cut short", exit=1, error="log.swf.gz: corrupt or truncated archive")
case("swf-huge-line", {"log.swf.gz": gz(("\n".join(SWF[:5] + ["2 " + "0" * (2 << 20)] + SWF[6:]) + "\n").encode())},
     "a 2 MiB line (over the 1 MiB record limit) is rejected without being held",
     rejects=[rej("jobs", "log.swf.gz", 6, "*", "longer than the limit")])
case("swf-bad-unix-start-time", swf(SWF[:2] + ["; UnixStartTime: yesterday"] + SWF[3:]),
     "a UnixStartTime that is not Unix time (every timestamp would be wrong)", exit=1,
     error="log.swf: line 3: UnixStartTime")
case("swf-empty-file", {"log.swf": ""}, "an empty log", exit=1, error="log.swf: empty file")

# AcmeTrace (InternLM/AcmeTrace README layout): header on line 1, jobs on lines 2, 3, 4.
ACME = ["job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,queue,gpu_time",
        "5778432,u5907,1,8,128,Other,FAILED,2023-03-01 00:18:22+08:00,2023-03-01 00:18:54+08:00,2023-03-01 00:20:51+08:00,117,32,936.0",
        "5778469,u5907,1,8,128,Other,COMPLETED,2023-03-01 00:23:58+08:00,2023-03-01 00:24:11+08:00,2023-03-01 01:09:04+08:00,2693,13,21544.0",
        "5778470,u5908,2,16,256,Pretrain,CANCELLED,2023-03-01 01:00:00+08:00,2023-03-01 01:00:10+08:00,2023-03-01 01:10:10+08:00,600,10,9600.0"]
def acme(lines=ACME):
    return {"data/job_trace/trace_seren.csv": "\n".join(lines) + "\n"}
case("acme-naive-time", acme(ACME[:2] + [ACME[2].replace("00:23:58+08:00", "00:23:58")] + ACME[3:]),
     "a submission time without its UTC offset (Seren and Kalos use different ones)",
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 3, "submit_time", "UTC offset")])
case("acme-bad-offset", acme(ACME[:3] + [ACME[3].replace("01:10:10+08:00", "01:10:10+8")]),
     "an end time with a malformed offset",
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 4, "end_time", "UTC offset")])
case("acme-unknown-state", acme(ACME[:1] + [ACME[1].replace("FAILED", "PREEMPTED")] + ACME[2:]),
     "a state outside the README's five",
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 2, "state", "COMPLETED")])
case("acme-unknown-type", acme(ACME[:3] + [ACME[3].replace("Pretrain", "Finetune")]),
     "a workload type outside the README's",
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 4, "type", "Pretrain")])
case("acme-end-before-start", acme(ACME[:3] + [ACME[3].replace("01:10:10+08:00", "00:59:00+08:00")]),
     "a job that ends before it starts",
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 4, "end_time", "end before start")])
case("acme-negative-gpus", acme(ACME[:2] + [ACME[2].replace(",1,8,128,", ",1,-8,128,")] + ACME[3:]),
     "a negative GPU count",
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 3, "gpu_num", "non-negative")])
case("acme-missing-column", acme([ACME[0].replace(",queue,", ",")] + [l.replace(",32,936.0", ",936.0").replace(",13,21544.0", ",21544.0").replace(",10,9600.0", ",9600.0") for l in ACME[1:]]),
     "a header without the queue column", exit=1, error="data/job_trace/trace_seren.csv: unknown layout: no column `queue`")
case("acme-git-lfs-pointer", {"data/job_trace/trace_kalos.csv": "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0" * 64 + "\nsize 1234\n"},
     "the pointer a clone without Git LFS leaves in place of the file", exit=1,
     error="data/job_trace/trace_kalos.csv: a Git LFS pointer")
case("acme-empty-file", {"trace_seren.csv": ""}, "an empty trace file", exit=1, error="trace_seren.csv: empty file")
case("acme-strict", acme(ACME[:1] + [ACME[1].replace("FAILED", "PREEMPTED")] + ACME[2:]),
     "with --strict any reject exits 1 (the tables are still written)", exit=1, strict=True,
     rejects=[rej("jobs", "data/job_trace/trace_seren.csv", 2, "state", "COMPLETED")],
     error="--strict: 1 record(s) rejected")

# cluster-trace-v2026-spot-gpu (README layout; synthetic rows, the trace is not redistributable).
SPOT = ["job_name,organization,gpu_model,cpu_request,gpu_request,worker_num,submit_time,duration,job_type",
        "job-1,org-a,A10,8,1,1,0,3600,HP",
        "job-2,org-b,A100-SXM4-80GB,96,8,2,60,7200,Spot",
        "job-3,org-a,H800,16,1,1,90,120,Spot"]
NODE = ["gpu_model,gpu_capacity_num,cpu_num,node_name", "A10,1,126,n1", "A100-SXM4-80GB,8,128,n2", "H800,8,192,n3"]
def spot(jobs=SPOT, nodes=NODE):
    return {"job_info_df.csv": "\n".join(jobs) + "\n", "node_info_df.csv": "\n".join(nodes) + "\n"}
case("spot-negative-workers", spot(SPOT[:2] + [SPOT[2].replace(",8,2,60,", ",8,-2,60,")] + SPOT[3:]),
     "a negative worker count", rejects=[rej("jobs", "job_info_df.csv", 3, "worker_num", "non-negative")])
case("spot-unknown-job-type", spot(SPOT[:3] + [SPOT[3].replace("Spot", "BestEffort")]),
     "a job type other than HP and Spot", rejects=[rej("jobs", "job_info_df.csv", 4, "job_type", "HP")])
case("spot-non-numeric", spot(SPOT[:1] + [SPOT[1].replace(",0,3600,", ",0,an hour,")] + SPOT[2:]),
     "a duration that is not a number", rejects=[rej("jobs", "job_info_df.csv", 2, "duration", "number")])
case("spot-wrong-field-count", spot(SPOT[:2] + ["job-2,org-b,A100-SXM4-80GB,96,8,2,60,7200"] + SPOT[3:]),
     "a job record of 8 fields", rejects=[rej("jobs", "job_info_df.csv", 3, "*", "9")])
case("spot-negative-node-gpus", spot(nodes=NODE[:3] + ["H800,-8,192,n3"]),
     "a node with a negative GPU capacity", rejects=[rej("nodes", "node_info_df.csv", 4, "gpu_capacity_num", "non-negative")])
case("spot-git-lfs-pointer", {"job_info_df.csv": "version https://git-lfs.github.com/spec/v1\noid sha256:" + "1" * 64 + "\nsize 99\n",
                              "node_info_df.csv": "\n".join(NODE) + "\n"},
     "the job file as a Git LFS pointer", exit=1, error="job_info_df.csv: a Git LFS pointer")
case("spot-empty-file", {"job_info_df.csv": ""}, "an empty job file", exit=1, error="job_info_df.csv: empty file")

for name, (files, expect) in cases.items():
    d = os.path.join(root, name)
    for rel, text in files.items():
        p = os.path.join(d, "input", rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            if isinstance(text, bytes):
                f.write(text)
            else:
                f.write(text.encode("utf-8") if "\xff" not in text else text.encode("latin-1"))
    with open(os.path.join(d, "expect.json"), "w") as f:
        json.dump(expect, f, indent=2)
        f.write("\n")
print(len(cases), "cases")
