#!/usr/bin/env python3
"""Opens a tracelab report in headless Chromium the way a reader would and checks that it renders.

Usage: check_report.py REPORT_DIR SCREENSHOT.png

1. Every SVG the report references parses as XML, has a viewBox/size and draws something (paths or images).
2. A copy of index.html with a small probe script appended is loaded by `chromium --headless --dump-dom`;
   the probe records every resource that failed to load, every script error and every <img> that did not
   decode (naturalWidth == 0), and writes the verdict into the DOM, which this script reads back.
3. A full-page screenshot of the unmodified index.html is written to SCREENSHOT.png and decoded here
   (stdlib zlib) to check that it is not blank: enough non-white pixels and distinct colours.
Prints a one-line verdict per check; exits 1 on any failure. Needs `chromium` (Debian package) on PATH.
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

PROBE = r"""
<script>
(function () {
  var failed = [];
  window.addEventListener('error', function (e) {
    var t = e.target || {};
    failed.push((t.src || t.href || e.message || 'error') + '');
  }, true);
  window.addEventListener('load', function () {
    var imgs = Array.prototype.slice.call(document.images);
    var broken = imgs.filter(function (i) { return !i.complete || i.naturalWidth === 0; })
                     .map(function (i) { return i.getAttribute('src'); });
    var out = document.createElement('pre');
    out.id = 'tracelab-probe';
    out.textContent = JSON.stringify({images: imgs.length, broken: broken, errors: failed});
    document.body.appendChild(out);
  });
})();
</script>
"""


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("chromium not found: install the Debian package `chromium` (.ci/run does)")


def run_chromium(args, timeout=180):
    base = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--allow-file-access-from-files", "--disable-dev-shm-usage", "--no-first-run"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=timeout)


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


def probe(report):
    # The probe page sits next to index.html so relative links resolve the same; removed afterwards.
    page = os.path.join(report, "tracelab-probe.html")
    html = open(os.path.join(report, "index.html"), encoding="utf-8").read()
    with open(page, "w", encoding="utf-8") as f:
        f.write(html.replace("</body>", PROBE + "</body>"))
    try:
        r = run_chromium(["--virtual-time-budget=20000", "--dump-dom", "file://" + os.path.abspath(page)])
    finally:
        os.remove(page)
    m = re.search(r'<pre id="tracelab-probe">(.*?)</pre>', r.stdout, re.S)
    if not m:
        return None, f"the probe did not report (chromium exit {r.returncode}): {r.stderr[-500:]}"
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")), None


def png_pixels(path):
    """Decodes an 8-bit RGB/RGBA PNG; returns (width, height, channels, rows)."""
    data = open(path, "rb").read()
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


def main():
    report, shot = sys.argv[1], sys.argv[2]
    ok = True
    srcs, problems = check_svgs(report)
    print(f"svg files: {len(srcs)} referenced, {len(problems)} problems")
    for p in problems:
        print("  " + p)
    ok &= not problems and len(srcs) > 0

    verdict, error = probe(report)
    if error:
        print("browser: " + error)
        ok = False
    else:
        print(f"browser: {verdict['images']} images, {len(verdict['broken'])} broken, {len(verdict['errors'])} errors")
        for b in verdict["broken"] + verdict["errors"]:
            print("  " + str(b))
        ok &= verdict["images"] == len(srcs) and not verdict["broken"] and not verdict["errors"]

    r = run_chromium(["--window-size=1280,3000", f"--screenshot={os.path.abspath(shot)}",
                      "file://" + os.path.abspath(os.path.join(report, "index.html"))])
    if not os.path.isfile(shot):
        print(f"screenshot: not written (chromium exit {r.returncode}): {r.stderr[-300:]}")
        sys.exit(1)
    w, h, ch, rows = png_pixels(shot)
    ink = sum(1 for row in rows for x in range(0, w * ch, ch) if min(row[x:x + 3]) < 200)
    colours = {row[x:x + 3] for row in rows[::7] for x in range(0, w * ch, ch * 7)}
    share = ink / (w * h)
    print(f"screenshot: {shot} {w}x{h}, {100 * share:.1f} % ink, {len(colours)} colours")
    ok &= share > 0.01 and len(colours) > 20
    print("ok" if ok else "FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
