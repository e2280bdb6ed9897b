#!/usr/bin/env python3
"""Load each module's landing page in headless Chromium and check the rendered text.

Usage: docs_render_check.py MODULES_JSON SITE_URL SCREENSHOT_DIR WORK_DIR
Expected on every landing page: the module's name and "Topics"; with a catalog, the title
of every article the catalog holds (DocC lists them under the landing page's topics).
"""
import html
import json
import pathlib
import re
import subprocess
import sys

modules = json.load(open(sys.argv[1]))
site, shots, work = sys.argv[2], pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
CHROME = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
          "--virtual-time-budget=15000"]


def expected(module):
    want = [module["module"], "Topics"]
    for catalog in pathlib.Path(module["path"]).glob("*.docc"):
        for article in sorted(catalog.glob("*.md")):
            if article.stem == module["module"]:
                continue
            title = next((l[2:].strip() for l in article.read_text().splitlines() if l.startswith("# ")), None)
            if title:
                want.append(re.sub(r"``([^`]+)``", r"\1", title).replace("`", ""))
    return want


def text_of(dom):
    dom = re.sub(r"<(script|style)[^>]*>.*?</\1>", " ", dom, flags=re.S)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", dom)))


failed = []
# The index page links every module.
index = text_of(subprocess.run(CHROME + ["--dump-dom", f"{site}/"], capture_output=True, text=True,
                               timeout=120).stdout)
missing = [m["module"] for m in modules if m["module"] not in index]
subprocess.run(CHROME + ["--window-size=1280,900", f"--screenshot={shots / 'index.png'}", f"{site}/"],
               capture_output=True, timeout=120)
print(f"render {'index':<22} {'FAILED' if missing else 'ok'}  {len(index):6d} chars"
      + (f"  missing: {missing}" if missing else ""))
if missing:
    failed.append("index")
for module in modules:
    url = f"{site}/{module['module']}/documentation/{module['module'].lower()}/"
    dom = subprocess.run(CHROME + ["--dump-dom", url], capture_output=True, text=True, timeout=120).stdout
    text = text_of(dom)
    missing = [w for w in expected(module) if w not in text]
    shot = shots / f"{module['module']}.png"
    subprocess.run(CHROME + ["--window-size=1280,1600", f"--screenshot={shot}", url], capture_output=True, timeout=120)
    (work / f"rendered-{module['module']}.txt").write_text(text)
    status = "ok" if not missing and shot.exists() else "FAILED"
    print(f"render {module['module']:<22} {status}  {len(text):6d} chars  {shot.relative_to(shots.parent.parent)}"
          + (f"  missing: {missing}" if missing else ""))
    if missing or not shot.exists():
        failed.append(module["module"])
if failed:
    sys.exit(f"make docs: rendered pages lack their expected text: {failed}")
print(f"make docs: {len(modules)} landing pages rendered and checked in chromium")
