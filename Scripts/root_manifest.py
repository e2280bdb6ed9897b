#!/usr/bin/env python3
"""Write the root Package.swift from every per-folder manifest, or check that it is up to date.

The per-folder manifests (Packages/*, Apps/*, Tests/* with a Package.swift) are the truth: each
concern builds and tests alone in its folder. The root manifest is generated from them so that an
app can add the SDK by URL and version (SwiftPM resolves a remote package only from a manifest at
the repository's root, and a remote package may not depend on local paths), and so that
`make test` compiles each module once, in one build folder.

Every folder is read with `swift package dump-package`; every target of every folder becomes one
target of the root package with its path into that folder (`Packages/JWE/Sources/JWE`), its
resources, excludes, settings and, for system libraries, pkg-config name and providers.
A `.product(name:package:)` dependency becomes dependencies on that product's targets. Target
names must be unique across folders (SwiftPM requires a module name to be unique in a build
graph anyway): a test target whose name clashes is renamed `<Package><Target>`; any other clash
is an error, since renaming a module would break its `import`s.

The root package offers every product of Packages/* and Apps/* except those of the packages that
exist only to test or fuzz the SDK (TestSupport, FuzzSupport); Tests/* packages declare none.
Folders listed in EXCLUDED (the consumer suite's outside apps, which depend on the root by URL)
are left out.

Usage:
  root_manifest.py            write Package.swift (after merging a branch: rerun, commit)
  root_manifest.py --check    exit 1 with a diff when Package.swift is not what would be written
  root_manifest.py --targets  print, per folder, its test targets (JSON); with --lines, one line
                              per folder: the folder and a `swift test --filter` for its targets
  --root DIR                  read and write the tree at DIR instead of this repository (tests)
"""
import difflib
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAME = "EGWPay"
TESTING_ONLY = {"TestSupport", "FuzzSupport"}
# Folders whose manifests are not part of the SDK's graph (outside apps of the consumer suite).
EXCLUDED = {"Tests/Consumer"}
DEFAULT_DIR = {"test": "Tests", "regular": "Sources", "executable": "Sources", "system": "Sources"}
KIND = {"regular": "target", "executable": "executableTarget", "test": "testTarget",
        "system": "systemLibrary"}


def folders():
    found = []
    for pattern in ("Packages/*/Package.swift", "Apps/*/Package.swift", "Tests/*/Package.swift"):
        for manifest in sorted(ROOT.glob(pattern)):
            rel = manifest.parent.relative_to(ROOT).as_posix()
            if rel not in EXCLUDED:
                found.append(rel)
    return found


def dump(folder):
    out = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT / folder, check=True,
                         capture_output=True, text=True, timeout=300).stdout
    return json.loads(out)


def swift_string(value):
    return json.dumps(value)


def setting(entry, where):
    tool, kind = entry["tool"], entry["kind"]
    (name, value), = kind.items()
    prefix = {"c": "cSetting", "cxx": "cxxSetting", "swift": "swiftSetting", "linker": "linkerSetting"}[tool]
    if name == "linkedLibrary":
        text = f".linkedLibrary({swift_string(value['_0'])})"
    elif name == "linkedFramework":
        text = f".linkedFramework({swift_string(value['_0'])})"
    elif name == "define":
        text = f".define({swift_string(value['_0'])})"
    elif name == "headerSearchPath":
        text = f".headerSearchPath({swift_string(value['_0'])})"
    elif name == "unsafeFlags":
        text = f".unsafeFlags({json.dumps(value['_0'])})"
    elif name == "enableUpcomingFeature":
        text = f".enableUpcomingFeature({swift_string(value['_0'])})"
    elif name == "enableExperimentalFeature":
        text = f".enableExperimentalFeature({swift_string(value['_0'])})"
    else:
        sys.exit(f"root_manifest.py: {where}: setting {name} is not translated yet; add it here")
    if entry.get("condition"):
        sys.exit(f"root_manifest.py: {where}: a conditional setting is not translated yet; add it here")
    return prefix, text


def model():
    """[(folder, dump)] and the root's targets in order, with clashes resolved."""
    dumps = [(folder, dump(folder)) for folder in folders()]
    # Package identity (SwiftPM: the folder name, lowercased) -> (folder, dump).
    by_identity = {pathlib.Path(f).name.lower(): (f, d) for f, d in dumps}
    owner = {}
    for folder, data in dumps:
        for target in data["targets"]:
            owner.setdefault(target["name"], []).append((folder, data["name"], target["type"]))
    rename = {}
    for name, places in owner.items():
        if len(places) == 1:
            continue
        for folder, package, kind in places:
            if kind != "test":
                sys.exit(f"root_manifest.py: target {name} is declared in "
                         f"{', '.join(p[0] for p in places)}; rename it in its folder (a module name is global)")
            rename[(folder, name)] = package.replace("-", "") + name
    return dumps, by_identity, rename


def render():
    dumps, by_identity, rename = model()
    local = {}  # (folder, target name) -> root target name
    for folder, data in dumps:
        for target in data["targets"]:
            local[(folder, target["name"])] = rename.get((folder, target["name"]), target["name"])

    def dependency_package(folder, data, package_name):
        # `.product(name:package:)` names the dependency by identity (folder name) or by its manifest name.
        for dependency in data["dependencies"]:
            for entry in dependency.get("fileSystem", []):
                identity = entry["identity"]
                if identity == package_name.lower():
                    return by_identity[identity]
        for f, d in dumps:
            if d["name"] == package_name:
                return f, d
        sys.exit(f"root_manifest.py: {folder}: no package {package_name}")

    def product_targets(folder, data, product, package_name):
        dep_folder, dep = dependency_package(folder, data, package_name)
        for prod in dep["products"]:
            if prod["name"] == product:
                return [local[(dep_folder, t)] for t in prod["targets"]]
        sys.exit(f"root_manifest.py: {folder}: package {package_name} has no product {product}")

    def resolve(folder, data, entry, where):
        (kind, value), = entry.items()
        if kind in ("byName", "target"):
            name, condition = value[0], value[-1]
            if (folder, name) in local:
                names = [local[(folder, name)]]
            else:  # a product of a dependency named alone
                names = None
                for dependency in data["dependencies"]:
                    for fs in dependency.get("fileSystem", []):
                        _, dep = by_identity[fs["identity"]]
                        if any(p["name"] == name for p in dep["products"]):
                            names = product_targets(folder, data, name, fs["identity"])
                if names is None:
                    sys.exit(f"root_manifest.py: {where}: cannot resolve dependency {name}")
        elif kind == "product":
            name, package_name, aliases, condition = value
            if aliases:
                sys.exit(f"root_manifest.py: {where}: moduleAliases are not translated yet")
            names = product_targets(folder, data, name, package_name)
        else:
            sys.exit(f"root_manifest.py: {where}: dependency kind {kind} is not translated yet")
        if condition:
            sys.exit(f"root_manifest.py: {where}: a conditional dependency is not translated yet")
        return names

    lines = []
    products = []
    platforms = {}
    for folder, data in dumps:
        for platform in data.get("platforms") or []:
            name, version = platform["platformName"], platform["version"]
            if tuple(map(int, version.split("."))) > tuple(map(int, platforms.get(name, "0").split("."))):
                platforms[name] = version
        if not folder.startswith("Tests/") and pathlib.Path(folder).name not in TESTING_ONLY:
            for product in data["products"]:
                targets = ", ".join(swift_string(local[(folder, t)]) for t in product["targets"])
                kind = "library" if "library" in product["type"] else "executable"
                if kind == "library" and product["type"]["library"] != ["automatic"]:
                    sys.exit(f"root_manifest.py: {folder}: library type {product['type']} is not translated yet")
                products.append(f"        .{kind}(name: {swift_string(product['name'])}, targets: [{targets}]),")
        lines.append(f"        // {folder} ({data['name']})")
        for target in data["targets"]:
            where = f"{folder}: {target['name']}"
            name = local[(folder, target["name"])]
            path = f"{folder}/{target.get('path') or DEFAULT_DIR[target['type']] + '/' + target['name']}"
            if not (ROOT / path).is_dir():
                sys.exit(f"root_manifest.py: {where}: no folder {path}")
            args = [f"name: {swift_string(name)}"]
            if target["type"] == "system":
                args.append(f"path: {swift_string(path)}")
                if target.get("pkgConfig"):
                    args.append(f"pkgConfig: {swift_string(target['pkgConfig'])}")
                providers = []
                for provider in target.get("providers") or []:
                    (manager, (names,)), = provider.items()
                    providers.append(f".{manager}({json.dumps(names)})")
                if providers:
                    args.append(f"providers: [{', '.join(providers)}]")
                lines.append(f"        .systemLibrary({', '.join(args)}),")
                continue
            dependencies = []
            for entry in target["dependencies"]:
                for dep in resolve(folder, data, entry, where):
                    if dep not in dependencies:
                        dependencies.append(dep)
            if dependencies:
                args.append(f"dependencies: [{', '.join(swift_string(d) for d in dependencies)}]")
            args.append(f"path: {swift_string(path)}")
            if target.get("exclude"):
                args.append(f"exclude: {json.dumps(target['exclude'])}")
            if target.get("sources") is not None:
                args.append(f"sources: {json.dumps(target['sources'])}")
            if target.get("resources"):
                resources = []
                for resource in target["resources"]:
                    rule = resource["rule"]
                    (rule_name, _), = rule.items() if isinstance(rule, dict) else ((rule, None),)
                    if rule_name not in ("copy", "process"):
                        sys.exit(f"root_manifest.py: {where}: resource rule {rule_name} is not translated yet")
                    resources.append(f".{rule_name}({swift_string(resource['path'])})")
                args.append(f"resources: [{', '.join(resources)}]")
            if target.get("publicHeadersPath"):
                args.append(f"publicHeadersPath: {swift_string(target['publicHeadersPath'])}")
            settings = {}
            for entry in target.get("settings") or []:
                prefix, text = setting(entry, where)
                settings.setdefault(prefix, []).append(text)
            for prefix in ("cSetting", "cxxSetting", "swiftSetting", "linkerSetting"):
                if prefix in settings:
                    args.append(f"{prefix}s: [{', '.join(settings[prefix])}]")
            if target.get("pluginUsages"):
                sys.exit(f"root_manifest.py: {where}: plugins are not translated yet")
            lines.append(f"        .{KIND[target['type']]}({', '.join(args)}),")
    platform_text = ""
    if platforms:
        names = {"macos": "macOS", "ios": "iOS", "linux": "linux"}
        entries = ", ".join(f".{names[n]}(\"{v}\")" for n, v in sorted(platforms.items()))
        platform_text = f"    platforms: [{entries}],\n"
    return f"""// swift-tools-version:6.0
// GENERATED by Scripts/root_manifest.py from every per-folder manifest; do not edit.
// After changing a folder's Package.swift (or merging a branch that does), run
//   python3 Scripts/root_manifest.py
// and commit the result; `make test` fails while this file differs from what the script writes.
//
// One package with every product of the SDK, for an app that adds it by URL and version
// (`.package(url: ..., from: "1.0.0")`, README "Adding the SDK to an app"), and one build folder
// for `make test`. Each folder under Packages/, Apps/ and Tests/ is still a package of its own.
import PackageDescription

let package = Package(
    name: "{NAME}",
{platform_text}    products: [
{chr(10).join(products)}
    ],
    targets: [
{chr(10).join(lines)}
    ],
    swiftLanguageModes: [.v6]
)
"""


def test_targets():
    out = []
    dumps, _, rename = model()
    for folder, data in dumps:
        tests = [rename.get((folder, t["name"]), t["name"]) for t in data["targets"] if t["type"] == "test"]
        out.append({"folder": folder, "tests": tests})
    return out


def main(argv):
    global ROOT
    if "--root" in argv:
        ROOT = pathlib.Path(argv[argv.index("--root") + 1]).resolve()
    path = ROOT / "Package.swift"
    if "--targets" in argv:
        if "--lines" in argv:
            for entry in test_targets():
                if entry["tests"]:
                    print(entry["folder"], "^(" + "|".join(entry["tests"]) + ")\\.")
        else:
            json.dump(test_targets(), sys.stdout, indent=1)
            print()
        return 0
    text = render()
    if "--check" in argv:
        current = path.read_text() if path.exists() else ""
        if current == text:
            print("root manifest: Package.swift agrees with every per-folder manifest")
            return 0
        sys.stdout.writelines(difflib.unified_diff(
            current.splitlines(True), text.splitlines(True), "Package.swift (checked in)",
            "Package.swift (generated from the folders)"))
        print("root manifest: Package.swift differs from the per-folder manifests; "
              "run `python3 Scripts/root_manifest.py` and commit it")
        return 1
    path.write_text(text)
    print(f"root manifest: wrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
