#!/usr/bin/env bash
# Build the docs workspace (see Scripts/workspace.py) with symbol graphs; shared by make docs and
# make api-check, so a warm api-check after make docs compiles nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build/docs-work"
mkdir -p "$WORK"
python3 "$ROOT/Scripts/workspace.py" "$WORK"
mkdir -p "$WORK/symbolgraphs"
log="$WORK/build.log"
# The compiler writes a module's graphs (public symbols, the default minimum access level) when
# it compiles the module, so a warm build leaves the last graphs in place; readers take only
# the modules listed in modules.json, so a graph left by a module that disappeared is ignored.
if ! (cd "$WORK" && swift build --target DocsListings \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$WORK/symbolgraphs") >"$log" 2>&1; then
  grep -E 'error:' -A3 "$log" || tail -n 40 "$log"
  echo "docs workspace: build FAILED (full log: ${log#"$ROOT/"})"; exit 1
fi
if grep -E '^/.*\.docc/.*warning:' "$log"; then
  echo "docs workspace: an article's listing compiles with a warning"; exit 1
fi
