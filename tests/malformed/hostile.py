"""Writes one hostile trace directory: a small archive that inflates to a huge record or huge
archive metadata, to check that ingest stays within bounded memory (tests/it/hardening_store.rs).
Nothing large is kept in the repository: the test generates the case it needs.

Run: python3 tests/malformed/hostile.py <case> <size-bytes> <out-dir>

Cases (each also holds valid small PAI job/task/instance tables unless it replaces one):
  tar-line      pai_job_table.tar.gz whose first line is <size> bytes long
  zip-line      data.zip whose Venus/cluster_log.csv has a record line of <size> bytes
  gnu-longname  pai_job_table.tar.gz with a GNU long-name entry of <size> bytes
  pax-header    pai_job_table.tar.gz with a PAX extended header of <size> bytes
  header-file   pai_job_table.tar.gz holding a pai_job_table.header of <size> bytes
"""
import gzip, os, sys, tarfile, zipfile, zlib

JOB = "j1,i1,u1,Terminated,100.0,200.0\nj2,i2,u2,Failed,150.0,400.0\n"
TASK = "j1,worker,1.0,Terminated,100.0,200.0,600.0,29.296875,50.0,T4\n"
INST = "j1,worker,n1,w1,i1,Terminated,110.0,190.0,m1\n"
CHUNK = 1 << 20


class Tar:
    """A tar stream written through gzip, entry by entry, data streamed in chunks."""

    def __init__(self, path):
        self.out = gzip.GzipFile(path, "wb", compresslevel=9, mtime=0)

    def entry(self, name, size, chunks, kind=tarfile.REGTYPE):
        info = tarfile.TarInfo(name)
        info.size, info.type, info.mtime = size, kind, 0
        self.out.write(info.tobuf(format=tarfile.GNU_FORMAT))
        for c in chunks:
            self.out.write(c)
        if size % 512:
            self.out.write(b"\0" * (512 - size % 512))

    def small(self, name, text):
        data = text.encode()
        self.entry(name, len(data), [data])

    def close(self):
        self.out.write(b"\0" * 1024)
        self.out.close()


def repeated(byte, size):
    """`size` bytes of `byte`, in chunks."""
    full, rest = divmod(size, CHUNK)
    block = byte * CHUNK
    for _ in range(full):
        yield block
    if rest:
        yield byte * rest


def pax_record(size):
    """One PAX record `<len> path=<value>\n` of exactly `size` bytes, streamed."""
    for digits in range(1, 21):
        value_len = size - digits - len(" path=\n")
        if len(str(size)) == digits and value_len > 0:
            break
    yield f"{size} path=".encode()
    yield from repeated(b"p", value_len)
    yield b"\n"


def write(rel, text, out):
    path = os.path.join(out, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main(case, size, out):
    pai = {"pai_job_table.csv": JOB, "pai_task_table.csv": TASK, "pai_instance_table.csv": INST}
    if case == "zip-line":
        header = "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
        os.makedirs(out, exist_ok=True)
        with zipfile.ZipFile(os.path.join(out, "data.zip"), "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
            info = zipfile.ZipInfo("data/Venus/cluster_log.csv", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with z.open(info, "w", force_zip64=True) as f:
                f.write(header.encode())
                for c in repeated(b"x", size):
                    f.write(c)
                f.write(b"\n1425511,uXBbc,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n")
        return
    del pai["pai_job_table.csv"]
    for rel, text in pai.items():
        write(rel, text, out)
    os.makedirs(out, exist_ok=True)
    tar = Tar(os.path.join(out, "pai_job_table.tar.gz"))
    if case == "tar-line":
        tar.entry("pai_job_table.csv", size + 1 + len(JOB), [*repeated(b"x", size), b"\n", JOB.encode()])
    elif case == "gnu-longname":
        tar.entry("././@LongLink", size, repeated(b"n", size), kind=tarfile.GNUTYPE_LONGNAME)
        tar.small("pai_job_table.csv", JOB)
    elif case == "pax-header":
        tar.entry("./PaxHeaders/pai_job_table.csv", size, pax_record(size), kind=tarfile.XHDTYPE)
        tar.small("pai_job_table.csv", JOB)
    elif case == "header-file":
        tar.entry("pai_job_table.header", size, repeated(b"h", size))
        tar.small("pai_job_table.csv", JOB)
    else:
        sys.exit(f"unknown case {case}")
    tar.close()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
