"""`make api-check` guards semantic versioning (issue 30, item 3).

Scripts/api_check.py is run on a small symbol graph against a baseline in a scratch folder: an added
declaration passes; a removed one fails while the SDK's major version is the baseline's and passes
once the major number went up; and `api-baseline` refuses to record a break over a released (tagged)
baseline in the same major version.
"""
import contextlib
import io
import json
import pathlib
import sys
import tempfile
import unittest
from unittest import mock

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent.parent / "Scripts"))
import api_check  # noqa: E402


def graph(folder, source, names):
    symbols = [{"accessLevel": "public", "kind": {"identifier": "swift.func"}, "pathComponents": [n],
                "identifier": {"precise": n}, "location": {"uri": f"file://{source}/M.swift"},
                "declarationFragments": [{"spelling": f"func {n}()"}]} for n in names]
    (folder / "M.symbols.json").write_text(json.dumps({"symbols": symbols, "relationships": []}))


class SemanticVersionTests(unittest.TestCase):
    def run_check(self, mode, names, version, baseline_version, tagged=False, baseline=("a", "b")):
        with tempfile.TemporaryDirectory() as scratch:
            scratch = pathlib.Path(scratch)
            api, graphs, source = scratch / "api", scratch / "graphs", scratch / "Sources/M"
            for folder in (api, graphs, source):
                folder.mkdir(parents=True)
            graph(graphs, str(source), names)
            (api / "M.txt").write_text("".join(f"{'func':<16} {n} :: func {n}()\n" for n in baseline))
            (api / "VERSION").write_text(baseline_version + "\n")
            kit = scratch / "PaymentKit.swift"
            kit.write_text(f'    public static let sdkVersion = "{version}"\n')
            (scratch / "modules.json").write_text(json.dumps([{"module": "M", "path": str(source)}]))
            out = io.StringIO()
            with mock.patch.object(api_check, "API", api), mock.patch.object(api_check, "VERSION_SOURCE", kit), \
                    mock.patch.object(api_check, "ROOT", scratch), \
                    mock.patch.object(api_check, "released", lambda v: tagged), \
                    mock.patch.object(sys, "argv", ["api_check.py", mode, str(graphs), str(scratch / "modules.json")]), \
                    contextlib.redirect_stdout(out):
                code = api_check.main()
            return code, out.getvalue(), (api / "VERSION").read_text().strip()

    def test_an_addition_passes_in_a_minor_version(self):
        code, out, _ = self.run_check("check", ["a", "b", "c"], "1.1.0", "1.0.0")
        self.assertEqual(code, 0, out)

    def test_a_removal_fails_in_the_same_major_version(self):
        code, out, _ = self.run_check("check", ["a"], "1.1.0", "1.0.0")
        self.assertEqual(code, 1, out)
        self.assertIn("BREAK (removed)", out)
        self.assertIn("raise the major version", out)

    def test_a_removal_passes_when_the_major_version_went_up(self):
        code, out, _ = self.run_check("check", ["a"], "2.0.0", "1.0.0")
        self.assertEqual(code, 0, out)
        self.assertIn("the major version went up", out)

    def test_a_version_below_the_baseline_fails(self):
        code, out, _ = self.run_check("check", ["a", "b"], "0.9.0", "1.0.0")
        self.assertEqual(code, 1, out)

    def test_a_released_baseline_is_not_rebaselined_over_a_break_in_the_same_major(self):
        code, out, version = self.run_check("baseline", ["a"], "1.0.1", "1.0.0", tagged=True)
        self.assertEqual((code, version), (1, "1.0.0"), out)
        code, out, version = self.run_check("baseline", ["a"], "1.0.0", "1.0.0", tagged=False)
        self.assertEqual((code, version), (0, "1.0.0"), "before the tag a break is re-baselined")
        code, out, version = self.run_check("baseline", ["a"], "2.0.0", "1.0.0", tagged=True)
        self.assertEqual((code, version), (0, "2.0.0"), out)


if __name__ == "__main__":
    unittest.main()
