#!/usr/bin/env bash
# make coverage: every package's own tests with --enable-code-coverage, then one table of line and
# function coverage per package (llvm-cov export -summary-only over the package's test binary,
# counting the package's own Sources/ only) and the ten least-covered SDK source files.
# Usage: coverage.sh DIR...   (the Makefile passes SWIFT_DIRS, in build order)
# The table is also written to .build/coverage/coverage.md. Knobs: the suites' own (EGW_SCHEDULES, ...).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.build/coverage"; mkdir -p "$OUT"
LLVM_COV="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-cov"
[ -x "$LLVM_COV" ] || LLVM_COV=llvm-cov
runs="$OUT/runs.tsv"; : > "$runs"
failed=""
for d in "$@"; do
  [ -f "$ROOT/$d/Package.swift" ] && [ -d "$ROOT/$d/Tests" ] || continue
  name=$(cd "$ROOT/$d" && swift package dump-package | python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])')
  echo "==> swift test --enable-code-coverage in $d"
  start=$(date +%s)
  if ! (cd "$ROOT/$d" && swift test --enable-code-coverage >"$OUT/$name.test.log" 2>&1); then
    echo "    tests FAILED (log: .build/coverage/$name.test.log); coverage of what ran is still counted"
    failed="$failed $d"
  fi
  # Executables a suite runs as child processes are instrumented too and drop default.profraw in
  # their working folder; that profile is not the test binary's, so it is removed, not counted.
  find "$ROOT/$d" -maxdepth 2 -name default.profraw -not -path '*/.build/*' -delete
  bin=$(cd "$ROOT/$d" && swift build --show-bin-path)
  profile="$bin/codecov/default.profdata"; binary="$bin/${name}PackageTests.xctest"
  if [ ! -f "$profile" ] || [ ! -f "$binary" ]; then echo "    no coverage data"; continue; fi
  "$LLVM_COV" export -summary-only -instr-profile "$profile" "$binary" >"$OUT/$name.json"
  printf '%s\t%s\t%s\t%s\n' "$d" "$name" "$OUT/$name.json" "$(( $(date +%s) - start ))" >>"$runs"
done
python3 "$ROOT/Scripts/sdk_products.py" >"$OUT/modules.json"
python3 "$ROOT/Scripts/coverage_table.py" "$runs" "$OUT/modules.json" | tee "$OUT/coverage.md"
[ -z "$failed" ] || { echo "make coverage: tests failed in:$failed"; exit 1; }
