#!/usr/bin/env python3
"""Print the coverage table from `llvm-cov export -summary-only` files.

Usage: coverage_table.py RUNS_TSV MODULES_JSON
RUNS_TSV lines: package dir, package name, export JSON, seconds. A package's row counts the
files under its own Sources/ that its test binary contains (a dependency's files are that
dependency's business). Tests/* suites, which have no Sources of their own to speak of, get a
row over the SDK library files they reach. The ten least-covered files are taken from the SDK's
library product targets (Scripts/sdk_products.py), each measured by its own package's tests.
"""
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
runs = [line.rstrip("\n").split("\t") for line in open(sys.argv[1]) if line.strip()]
sdk_paths = [m["path"] + "/" for m in json.load(open(sys.argv[2]))]


def files(export):
    for data in json.load(open(export))["data"]:
        for f in data["files"]:
            yield f["filename"], f["summary"]


def pct(covered, count):
    return f"{100.0 * covered / count:5.1f} %" if count else "    –  "


rows, per_file, reached = [], {}, {}
for folder, name, export, seconds in runs:
    own = str(ROOT / folder) + "/Sources/"
    is_suite = folder.startswith("Tests/")
    lines = [0, 0]; funcs = [0, 0]; count = 0
    for path, summary in files(export):
        mine = any(path.startswith(p) for p in sdk_paths) if is_suite else path.startswith(own)
        if not mine:
            continue
        count += 1
        lines[0] += summary["lines"]["covered"]; lines[1] += summary["lines"]["count"]
        funcs[0] += summary["functions"]["covered"]; funcs[1] += summary["functions"]["count"]
        if not is_suite and any(path.startswith(p) for p in sdk_paths):
            per_file[path] = summary["lines"]
        if is_suite:
            reached.setdefault(path, {})[folder] = summary["lines"]
    label = f"{folder} (SDK files it reaches)" if is_suite else folder
    rows.append((label, count, lines, funcs, seconds))

print("| package | files | lines | line coverage | functions | function coverage |")
print("|---|---:|---:|---:|---:|---:|")
for label, count, lines, funcs, _ in rows:
    print(f"| `{label}` | {count} | {lines[1]} | {pct(*lines)} | {funcs[1]} | {pct(*funcs)} |")
print()
suites = [folder for folder, *_ in runs if folder.startswith("Tests/")]
print("Ten least-covered SDK source files (by line coverage under their own package's tests; the")
print("cross-package suites' coverage of the same file beside it, measured separately, not merged):")
print()
print("| file | lines | line coverage |" + "".join(f" under `{s}` |" for s in suites))
print("|---|---:|---:|" + "---:|" * len(suites))
worst = sorted(per_file.items(), key=lambda kv: (kv[1]["covered"] / max(kv[1]["count"], 1), -kv[1]["count"]))
for path, summary in worst[:10]:
    beside = "".join(
        f" {pct(reached[path][s]['covered'], reached[path][s]['count']) if s in reached.get(path, {}) else '    –  '} |"
        for s in suites)
    print(f"| `{pathlib.Path(path).relative_to(ROOT)}` | {summary['count']} | {pct(summary['covered'], summary['count'])} |"
          + beside)
