#!/usr/bin/env python3
"""Opens a tracelab report in headless Chromium the way a reader would and checks that it renders.

Usage: check_report.py REPORT_DIR SCREENSHOT.png

1. Every SVG the report references parses as XML, has a viewBox/size and draws something (paths or images),
   with its text as outlines (no <text>).
2. index.html, unmodified, is loaded in headless Chromium driven over the DevTools protocol (through
   --remote-debugging-pipe, so no network port and no third-party module): every resource that fails to
   load, every script error and every <img> that does not decode (naturalWidth == 0) is a failure.
3. A full-page screenshot (the whole index, however tall: the viewport is set to the page's height and
   the capture goes beyond it) is written to SCREENSHOT.png, and a thumbnail of the same page is decoded
   here (stdlib zlib) to check that the page is not blank: enough non-white pixels and distinct colours.
Prints a one-line verdict per check; exits 1 on any failure. Needs `chromium` (Debian package) on PATH.
"""
import base64
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zlib

WIDTH = 1280
# A page taller than this is cut (Chromium's largest texture); the report is far shorter.
MAX_HEIGHT = 200000


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("chromium not found: install the Debian package `chromium` (scripts/test.sh does)")


def check_svgs(report):
    html = open(os.path.join(report, "index.html"), encoding="utf-8").read()
    srcs = re.findall(r'<img src="([^"]+)"', html)
    problems = []
    for src in srcs:
        path = os.path.join(report, src)
        try:
            root = ET.parse(path).getroot()
        except (OSError, ET.ParseError) as e:
            problems.append(f"{src}: {e}")
            continue
        drawn = sum(1 for el in root.iter() if el.tag.split('}')[-1] in ("path", "use", "image", "rect", "circle"))
        if root.tag.split('}')[-1] != "svg" or not root.get("viewBox") or drawn < 10:
            problems.append(f"{src}: empty or not an SVG ({drawn} drawing elements)")
        if any(el.tag.split('}')[-1] == "text" for el in root.iter()):
            problems.append(f"{src}: has <text> (would render in the viewer's font)")
    return srcs, problems


class DevTools:
    """Chromium's DevTools protocol over --remote-debugging-pipe: JSON messages separated by NUL bytes,
    commands written to the browser's fd 3, answers and events read from its fd 4."""

    def __init__(self, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def wire():
            # Copies first: a pipe end may already be fd 3 or 4, and dup2 onto itself would keep its
            # close-on-exec flag; dup2 onto another number gives an inheritable descriptor.
            r, w = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                "--allow-file-access-from-files", "--disable-dev-shm-usage", "--no-first-run",
                "--remote-debugging-pipe", f"--user-data-dir={profile}", "about:blank"]
        self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, preexec_fn=wire, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def _read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise EOFError("Chromium closed the DevTools pipe: " + self.proc.stderr.read().decode()[-500:])
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, session=None, timeout=120, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, event, timeout=120):
        deadline = time.time() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == event:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self.to_browser)
        os.close(self.from_browser)


BROKEN_IMAGES = """JSON.stringify(Array.prototype.slice.call(document.images)
  .filter(function (i) { return !i.complete || i.naturalWidth === 0; })
  .map(function (i) { return i.getAttribute('src'); }))"""


def open_page(report, profile):
    """Loads index.html; returns (DevTools, session, number of images, broken images, load errors)."""
    dt = DevTools(profile)
    target = dt.call("Target.createTarget", url="about:blank")["targetId"]
    session = dt.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
    for domain in ("Page", "Network", "Runtime", "Log"):
        dt.call(f"{domain}.enable", session)
    dt.call("Emulation.setDeviceMetricsOverride", session, width=WIDTH, height=900, deviceScaleFactor=1, mobile=False)
    dt.call("Page.navigate", session, url="file://" + os.path.abspath(os.path.join(report, "index.html")))
    dt.wait_for("Page.loadEventFired")
    images = dt.call("Runtime.evaluate", session, expression="document.images.length", returnByValue=True)
    broken = dt.call("Runtime.evaluate", session, expression=BROKEN_IMAGES, returnByValue=True)
    errors = []
    for m in dt.events:
        p = m.get("params", {})
        if m.get("method") == "Network.loadingFailed":
            errors.append(f"load failed: {p.get('errorText')} ({p.get('requestId')})")
        elif m.get("method") == "Runtime.exceptionThrown":
            errors.append("script error: " + p.get("exceptionDetails", {}).get("text", ""))
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            errors.append("console: " + p["entry"].get("text", ""))
    return dt, session, images["result"]["value"], json.loads(broken["result"]["value"]), errors


def screenshot(dt, session, scale):
    """The whole page as PNG bytes at `scale` (1: every CSS pixel), and its CSS size."""
    size = dt.call("Page.getLayoutMetrics", session)["cssContentSize"]
    w, h = int(size["width"]), min(int(size["height"]), MAX_HEIGHT)
    dt.call("Emulation.setDeviceMetricsOverride", session, width=w, height=h, deviceScaleFactor=1, mobile=False)
    shot = dt.call("Page.captureScreenshot", session, format="png", captureBeyondViewport=True,
                   clip={"x": 0, "y": 0, "width": w, "height": h, "scale": scale}, timeout=300)
    return base64.b64decode(shot["data"]), (w, h)


def png_pixels(data):
    """Decodes an 8-bit RGB/RGBA PNG; returns (width, height, channels, rows)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), f"unsupported PNG (depth {depth}, colour type {ctype})"
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b, c = prev[i], prev[i - ch] if i >= ch else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, ch, rows


def ink(png):
    """(share of pixels darker than light grey, distinct colours) of a PNG."""
    tw, th, ch, rows = png_pixels(png)
    dark = sum(1 for row in rows for x in range(0, tw * ch, ch) if min(row[x:x + 3]) < 200)
    return dark / (tw * th), len({row[x:x + 3] for row in rows for x in range(0, tw * ch, ch)})


def main():
    report, shot = sys.argv[1], sys.argv[2]
    ok = True
    srcs, problems = check_svgs(report)
    print(f"svg files: {len(srcs)} referenced, {len(problems)} problems")
    for p in problems:
        print("  " + p)
    ok &= not problems and len(srcs) > 0

    with tempfile.TemporaryDirectory() as profile:
        dt, session, images, broken, errors = open_page(report, profile)
        try:
            print(f"browser: {images} images, {len(broken)} broken, {len(errors)} errors")
            for b in broken + errors:
                print("  " + str(b))
            ok &= images == len(srcs) and not broken and not errors
            full, (w, h) = screenshot(dt, session, 1.0)
            # Chromium has returned a blank capture of this 110,000-pixel page
            # once in many runs (the next one was whole): a blank thumbnail is
            # taken again, twice at most, and a page that stays blank fails.
            for attempt in range(3):
                share, colours = ink(screenshot(dt, session, 0.125)[0])
                if share > 0.01 and colours > 20:
                    break
                print(f"thumbnail {attempt + 1} blank ({100 * share:.1f} % ink, {colours} colours)")
        finally:
            dt.close()
    os.makedirs(os.path.dirname(os.path.abspath(shot)), exist_ok=True)
    with open(shot, "wb") as f:
        f.write(full)
    fw, fh, _, _ = struct.unpack(">8x8xII", full[:24]) + (0, 0)
    print(f"screenshot: {shot} {fw}x{fh} (the whole page, {w}x{h} CSS px), {100 * share:.1f} % ink, "
          f"{colours} colours")
    ok &= fh >= h - 1 and share > 0.01 and colours > 20
    print("ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
