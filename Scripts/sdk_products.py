#!/usr/bin/env python3
"""The SDK's library products, discovered from each package's manifest.

Every `Packages/*/Package.swift` is read with `swift package dump-package`; each
library product it declares is listed with the targets it is made of. Packages
that exist only to test or fuzz the SDK (`TESTING_ONLY`) publish libraries too,
but no integrator imports them, so they are left out. A package that appears
later (a new folder under Packages/) is picked up with no change here.

Used by docs.sh, api_check.py and coverage.sh. Prints JSON when run alone.
"""
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
# Test and fuzz plumbing: their manifests say so (README "Packages").
TESTING_ONLY = {"TestSupport", "FuzzSupport"}


def packages():
    """[{name, dir, products: [{name, targets: [{name, path}]}]}], in folder order."""
    found = []
    for manifest in sorted(ROOT.glob("Packages/*/Package.swift")):
        folder = manifest.parent
        if folder.name in TESTING_ONLY:
            continue
        dump = json.loads(subprocess.run(
            ["swift", "package", "dump-package"], cwd=folder, check=True,
            capture_output=True, text=True).stdout)
        targets = {t["name"]: t for t in dump["targets"]}
        products = []
        for product in dump["products"]:
            if "library" not in product["type"]:
                continue
            members = []
            for name in product["targets"]:
                target = targets[name]
                if target["type"] not in ("regular",):
                    continue  # a C or system-library target has no Swift API to document
                path = target.get("path") or f"Sources/{name}"
                members.append({"name": name, "path": str(folder / path)})
            if members:
                products.append({"name": product["name"], "targets": members})
        if products:
            found.append({"name": dump["name"], "dir": str(folder), "products": products})
    return found


def modules():
    """Every documented Swift module: [{module, package, dir, path}]."""
    out = []
    for package in packages():
        for product in package["products"]:
            for target in product["targets"]:
                out.append({"module": target["name"], "package": package["name"],
                            "dir": package["dir"], "path": target["path"]})
    return out


if __name__ == "__main__":
    json.dump(packages() if "--packages" in sys.argv else modules(), sys.stdout, indent=2)
    print()
