"""The package graph, read from every manifest (`swift package dump-package`), against the picture of
issue 19 and the README's package table: no cycle between packages; CardValidation, StatusMapping,
EGWWire and BuyerText libraries depend on nothing; JWE's library on EGWWire only; PaymentFlow, in any
target, on no browser, sheet, shell or sandbox; no shipped library on the packages that prove it.

The checks are plain functions over a small graph model, and the last tests feed them graphs with a
cycle and with a forbidden edge, so a check that cannot fail is caught here too.
"""
import json
import pathlib
import subprocess
import unittest

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
PROOF = {"TestSupport", "FuzzSupport"}
# What PaymentFlow must never see: the browser, the sheet, the GTK parts, the shells, the sandbox.
NOT_UNDER_PAYMENTFLOW = {"GatewaySandbox", "HeadlessBrowser", "PaymentAuthorization", "WebKitPresenter",
                         "PaymentUI", "egw-repl", "egw-checkout"}


def manifests():
    return sorted(p.parent for pattern in ("Packages/*/Package.swift", "Apps/*/Package.swift",
                                           "Tests/*/Package.swift") for p in ROOT.glob(pattern))


def dump(folder):
    out = subprocess.run(["swift", "package", "dump-package"], cwd=folder, check=True,
                         capture_output=True, text=True, timeout=120).stdout
    return json.loads(out)


def model(folder, data):
    """{name, dir, kind, deps: {package names}, targets: {name: {type, local: set, products: set}},
    libraries: {product: [targets]}}; package names are folder names (SwiftPM's identities)."""
    deps = set()
    for dependency in data["dependencies"]:
        for entry in dependency.get("fileSystem", []):
            deps.add(pathlib.Path(entry["path"]).name)
    targets = {}
    for target in data["targets"]:
        local, products = set(), set()
        for dependency in target["dependencies"]:
            if "byName" in dependency:
                local.add(dependency["byName"][0])
            elif "target" in dependency:
                local.add(dependency["target"][0])
            elif "product" in dependency:
                products.add((dependency["product"][1], dependency["product"][0]))
        targets[target["name"]] = {"type": target["type"], "local": local, "products": products}
    libraries = {p["name"]: p["targets"] for p in data["products"] if "library" in p["type"]}
    return {"name": folder.name, "dir": folder.parent.name, "deps": deps, "targets": targets,
            "libraries": libraries}


def find_cycle(edges):
    """A list of names forming a cycle in {node: {nodes}}, or None."""
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = "done"
        return None

    for start in sorted(edges):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return None


def closure(package, roots):
    """Every target of `package` reachable from `roots` through its own targets."""
    seen, todo = set(), list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name not in package["targets"]:
            continue
        seen.add(name)
        todo.extend(package["targets"][name]["local"])
    return seen


def library_products_used(package):
    """(package, product) pairs the package's library products link, through their own targets."""
    used = set()
    for members in package["libraries"].values():
        for name in closure(package, members):
            used |= package["targets"][name]["products"]
    return used


def forbidden_edges(package, banned):
    """(target, package) edges from any target of `package`, or from the package itself, into `banned`."""
    found = [("<package>", dep) for dep in sorted(package["deps"] & banned)]
    for name, target in sorted(package["targets"].items()):
        found += [(name, pkg) for pkg, _ in sorted(target["products"]) if pkg in banned]
    return found


class PackageGraphTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.packages = {folder.name: model(folder, dump(folder)) for folder in manifests()}

    def test_every_package_the_readme_names_is_read(self):
        for name in ["EGWWire", "StatusMapping", "CardValidation", "BuyerText", "JWE", "PaymentFlow",
                     "GatewaySandbox", "HeadlessBrowser", "PaymentAuthorization", "WebKitPresenter",
                     "PaymentUI", "egw-repl", "egw-checkout", "EndToEnd", "UIEndToEnd"]:
            self.assertIn(name, self.packages)

    def test_no_package_depends_on_itself_through_others(self):
        edges = {name: package["deps"] for name, package in self.packages.items()}
        self.assertIsNone(find_cycle(edges))

    def test_the_leaf_libraries_depend_on_nothing(self):
        for name in ["EGWWire", "StatusMapping", "CardValidation", "BuyerText"]:
            self.assertEqual(library_products_used(self.packages[name]), set(), name)

    def test_jwe_links_egwwire_only(self):
        self.assertEqual({pkg for pkg, _ in library_products_used(self.packages["JWE"])}, {"EGWWire"})

    def test_paymentflow_sees_no_browser_sheet_shell_or_sandbox_in_any_target(self):
        self.assertEqual(forbidden_edges(self.packages["PaymentFlow"], NOT_UNDER_PAYMENTFLOW), [])
        self.assertEqual({pkg for pkg, _ in library_products_used(self.packages["PaymentFlow"])},
                         {"BuyerText", "EGWWire", "StatusMapping", "CardValidation", "JWE"})

    def test_no_shipped_library_links_the_packages_that_prove_it(self):
        proof = PROOF | {name for name, p in self.packages.items() if p["dir"] == "Tests"}
        for name, package in self.packages.items():
            if package["dir"] != "Packages" or name in PROOF:
                continue
            linked = {pkg for pkg, _ in library_products_used(package)}
            self.assertEqual(linked & proof, set(), f"{name}'s libraries link proof")
            self.assertEqual(package["deps"] & {n for n, p in self.packages.items() if p["dir"] != "Packages"},
                             set(), f"{name} depends on an app or a test package")

    def test_egw_repl_itself_links_no_gtk(self):
        # WebKitGTK's libraries cost egw-repl's start-up target (150 ms, 40 MB) at every start; the
        # WebKit side is egw-repl-webkit's, which egw-repl runs for --browser webkit and --screenshots.
        repl = self.packages["egw-repl"]
        self.assertIn("egw-repl-webkit", repl["targets"])
        reached = {pkg for name in closure(repl, ["egw-repl"]) for pkg, _ in repl["targets"][name]["products"]}
        todo = list(reached)
        while todo:
            for pkg, _ in library_products_used(self.packages[todo.pop()]):
                if pkg not in reached:
                    reached.add(pkg)
                    todo.append(pkg)
        self.assertEqual(reached & {"WebKitPresenter", "PaymentUI", "GLibMainQueue"}, set())
        webkit = {pkg for name in closure(repl, ["egw-repl-webkit"]) for pkg, _ in repl["targets"][name]["products"]}
        self.assertIn("WebKitPresenter", webkit)

    # The checks themselves, on graphs made to fail them.

    def test_a_cycle_is_found(self):
        self.assertEqual(find_cycle({"A": {"B"}, "B": {"C"}, "C": {"A"}, "D": set()}), ["A", "B", "C", "A"])
        self.assertIsNone(find_cycle({"A": {"B"}, "B": set(), "C": {"A", "B"}}))

    def test_a_forbidden_edge_in_a_test_target_is_found(self):
        package = {"deps": {"EGWWire", "GatewaySandbox"}, "targets": {
            "Flow": {"type": "regular", "local": set(), "products": {("EGWWire", "EGWWire")}},
            "FlowTests": {"type": "test", "local": {"Flow"}, "products": {("GatewaySandbox", "GatewaySandbox")}},
        }, "libraries": {"Flow": ["Flow"]}}
        self.assertEqual(forbidden_edges(package, NOT_UNDER_PAYMENTFLOW),
                         [("<package>", "GatewaySandbox"), ("FlowTests", "GatewaySandbox")])
        self.assertEqual(library_products_used(package), {("EGWWire", "EGWWire")},
                         "a test target's products are not the library's")

    def test_a_product_reached_through_an_internal_target_counts(self):
        package = {"deps": set(), "targets": {
            "Lib": {"type": "regular", "local": {"Inner"}, "products": set()},
            "Inner": {"type": "regular", "local": set(), "products": {("JWE", "JWE")}},
        }, "libraries": {"Lib": ["Lib"]}}
        self.assertEqual(library_products_used(package), {("JWE", "JWE")})


if __name__ == "__main__":
    unittest.main()
