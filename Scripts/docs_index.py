#!/usr/bin/env python3
"""Write .build/docs/index.html: one link per documented module, grouped by package.

Usage: docs_index.py MODULES_JSON SITE_DIR HOSTING_BASE
Each module's summary is the first paragraph of its catalog's landing page (the line
after the `# ``Module``` title), or the package's README title line when it has none.
"""
import html
import json
import pathlib
import re
import sys

modules = json.load(open(sys.argv[1]))
site = pathlib.Path(sys.argv[2])
base = sys.argv[3].strip("/")
prefix = f"/{base}" if base else ""


def summary(module):
    for catalog in pathlib.Path(module["path"]).glob("*.docc"):
        landing = catalog / f"{module['module']}.md"
        if landing.exists():
            lines = landing.read_text().splitlines()
            for line in lines[1:]:
                if line.strip() and not line.startswith("@"):
                    return re.sub(r"``([^`]+)``", r"\1", line.strip())
    readme = pathlib.Path(module["dir"]) / "README.md"
    if readme.exists():
        return readme.read_text().splitlines()[0].lstrip("# ")
    return ""


rows = []
for package in dict.fromkeys(m["package"] for m in modules):
    rows.append(f"<h2>{html.escape(package)}</h2>\n<ul>")
    for m in (m for m in modules if m["package"] == package):
        href = f"{prefix}/{m['module']}/documentation/{m['module'].lower()}/"
        rows.append(f'  <li><a href="{href}"><code>{html.escape(m["module"])}</code></a> '
                    f"— {html.escape(summary(m))}</li>")
    rows.append("</ul>")
page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>EGWPay for Linux — documentation</title>
<style>body{{font:16px/1.5 system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem}}
code{{font-size:1.05em}}h2{{margin-top:1.5rem;font-size:1.2rem}}</style></head>
<body><h1>EGWPay for Linux</h1>
<p>DocC documentation for every library product of the SDK, built by <code>make docs</code>.</p>
{chr(10).join(rows)}
</body></html>
"""
(site / "index.html").write_text(page)
print(f"docs index: {len(modules)} modules")
