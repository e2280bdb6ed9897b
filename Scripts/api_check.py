#!/usr/bin/env python3
"""The SDK's public API against the baseline under api/.

Usage: api_check.py check|baseline SYMBOLGRAPH_DIR MODULES_JSON
Each documented module's public API is read from its symbol graphs (`<M>.symbols.json` and
the extension graphs `<M>@<Other>.symbols.json` the compiler wrote while building the docs
workspace) and written as one line per public symbol: its kind, its path and its whole
declaration, sorted. `api/<M>.txt` is that text for the API as last agreed.

check: prints every addition (fine) and every removal or changed declaration (a break);
exits 1 on a break, or when a module in the baseline is gone. A new module is an addition.
baseline: rewrites api/ from the current graphs (`make api-baseline`), so a deliberate break
is accepted by committing the new baseline with the change.

Semantic versioning: api/VERSION names the release the baseline is the API of, and the SDK's
version is `PaymentKit.sdkVersion`. check fails on a break unless the SDK's major number is above
the baseline's (then the breaks are listed and pass: a new major may break). baseline refuses to
record a break over a released baseline (its version is a git tag) unless the major number went up,
so a released API is never re-baselined away; before the tag, a break is re-baselined as before.
"""
import re
import subprocess
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
API = ROOT / "api"
VERSION_SOURCE = ROOT / "Packages/PaymentFlow/Sources/PaymentFlow/API/PaymentKit.swift"


def sdk_version():
    """`PaymentKit.sdkVersion` as (major, minor, patch), read from its source."""
    found = re.search(r'public static let sdkVersion = "(\d+)\.(\d+)\.(\d+)"', VERSION_SOURCE.read_text())
    if not found:
        sys.exit(f"api-check: no `public static let sdkVersion = \"X.Y.Z\"` in {VERSION_SOURCE.relative_to(ROOT)}")
    return tuple(int(part) for part in found.groups())


def baseline_version():
    path = API / "VERSION"
    if not path.exists():
        return (0, 0, 0)
    return tuple(int(part) for part in path.read_text().strip().split("."))


def text(version):
    return ".".join(map(str, version))


def released(version):
    tags = subprocess.run(["git", "tag", "--list", text(version), "v" + text(version)], cwd=ROOT,
                          capture_output=True, text=True).stdout.split()
    return bool(tags)


def breaks_against_baseline(current):
    count = 0
    for module in set(current) | {p.stem for p in API.glob("*.txt")}:
        base_file = API / f"{module}.txt"
        if module not in current:
            count += 1
        elif base_file.exists():
            count += len(set(base_file.read_text().splitlines()) - set(current[module]))
    return count


def api_lines(graphs, module, source):
    """source: the module's folder; a symbol declared elsewhere (re-exported) is that module's API."""
    lines = set()
    for path in sorted(graphs.glob(f"{module}.symbols.json")) + sorted(graphs.glob(f"{module}@*.symbols.json")):
        graph = json.loads(path.read_text())
        extended = path.name.split("@")[1].split(".")[0] if "@" in path.name else None
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            uri = symbol.get("location", {}).get("uri", "")
            if uri and not uri.removeprefix("file://").startswith(source + "/"):
                continue
            kind = symbol["kind"]["identifier"].removeprefix("swift.")
            where = ".".join(symbol["pathComponents"])
            if extended:
                where = f"{extended}.{where}"
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            declaration = " ".join(declaration.split())
            lines.add(f"{kind:<16} {where} :: {declaration}")
        # Conformances are API too: dropping `Sendable` or `Hashable` breaks callers.
        names = {s["identifier"]["precise"]: ".".join(s["pathComponents"]) for s in graph["symbols"]
                 if s.get("accessLevel") in ("public", "open")
                 and s.get("location", {}).get("uri", "file://" + source + "/").removeprefix("file://").startswith(source + "/")}
        for rel in graph.get("relationships", []):
            if rel["kind"] != "conformsTo" or rel["source"] not in names:
                continue
            target = rel.get("targetFallback") or names.get(rel["target"], rel["target"])
            lines.add(f"{'conformance':<16} {names[rel['source']]} : {target}")
    return sorted(lines)


def main():
    mode, graphs, modules = sys.argv[1], pathlib.Path(sys.argv[2]), json.load(open(sys.argv[3]))
    current = {m["module"]: api_lines(graphs, m["module"], m["path"]) for m in modules}
    version, base = sdk_version(), baseline_version()
    if mode == "baseline":
        if version < base:
            print(f"api-baseline: the SDK's version {text(version)} is below the baseline's {text(base)}")
            return 1
        breaks = breaks_against_baseline(current)
        if breaks and released(base) and version[0] <= base[0]:
            print(f"api-baseline: REFUSED: {breaks} public declarations of release {text(base)} removed or changed; "
                  f"a released API breaks only in a new major version (PaymentKit.sdkVersion, CHANGELOG.md)")
            return 1
        API.mkdir(exist_ok=True)
        (API / "VERSION").write_text(text(version) + "\n")
        for old in API.glob("*.txt"):
            if old.stem not in current:
                old.unlink()
        for module, lines in current.items():
            (API / f"{module}.txt").write_text("".join(l + "\n" for l in lines))
        total = sum(map(len, current.values()))
        print(f"api-baseline: {total} public declarations in {len(current)} modules written to api/")
        return 0
    breaks = 0
    for module in sorted(set(current) | {p.stem for p in API.glob("*.txt")}):
        base_file = API / f"{module}.txt"
        if module not in current:
            print(f"api-check: {module}: BREAK: the module is gone (baseline api/{module}.txt)")
            breaks += 1
            continue
        now = set(current[module])
        if not base_file.exists():
            print(f"api-check: {module}: new module, {len(now)} public declarations (no baseline yet)")
            continue
        before = set(base_file.read_text().splitlines())
        removed, added = sorted(before - now), sorted(now - before)
        added_paths = {l.split(" :: ")[0] for l in added}
        for line in removed:
            verb = "changed" if line.split(" :: ")[0] in added_paths else "removed"
            print(f"api-check: {module}: BREAK ({verb}): {line}")
        for line in added:
            print(f"api-check: {module}: added: {line}")
        breaks += len(removed)
        print(f"api-check: {module}: {len(now)} public declarations, {len(added)} added, {len(removed)} removed or changed")
    if version < base:
        print(f"api-check: FAILED: the SDK's version {text(version)} is below the baseline's {text(base)}")
        return 1
    if breaks and version[0] > base[0]:
        print(f"api-check: {breaks} public declarations removed or changed: allowed, the major version went up "
              f"({text(base)} -> {text(version)}); run `make api-baseline` for the new release")
        return 0
    if breaks:
        print(f"api-check: FAILED: {breaks} public declarations removed or changed against {text(base)} while the "
              f"SDK is {text(version)}. Semantic versioning: restore them, or raise the major version "
              "(PaymentKit.sdkVersion, CHANGELOG.md); before the release is tagged, `make api-baseline` "
              "and commit api/ with the change.")
        return 1
    print("api-check: no public declaration removed or changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
