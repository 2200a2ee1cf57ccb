"""One measured process, the way every bench script times a command: wall time (perf_counter from start to
exit), CPU time (user + system) and peak RSS of the process, from wait4. Standard output is kept when asked
for, standard error always (its tail is printed when the command fails, which ends the bench).
"""
import os
import subprocess
import sys
import tempfile
import time
from typing import NamedTuple


class Measured(NamedTuple):
    secs: float
    rss_mb: float
    cpu: float
    stdout: str
    stderr: str


def run(cmd, capture=False):
    """Runs cmd (its items made strings) to completion; returns its Measured. Exits the bench if it fails."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([str(c) for c in cmd], stdout=out if capture else subprocess.DEVNULL, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        secs = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(map(str, cmd))}\n{stderr[-2000:]}")
    return Measured(secs, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime, stdout, stderr)
