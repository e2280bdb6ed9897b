#!/usr/bin/env bash
# make docs: DocC for every SDK library product, as one static site under .build/docs.
#
# 1. The docs workspace (Scripts/workspace.py) is built once with -emit-symbol-graph: every
#    SDK module compiles once, and so does every ```swift listing of every article (a listing
#    that does not compile fails here, at its article's line).
# 2. `docc convert --warnings-as-errors` per module, with the module's catalog
#    (Sources/<Module>/<Module>.docc) when it has one, transformed for static hosting under
#    <DOCS_HOSTING_BASE>/<Module>.
# 3. An index page linking every module, and a render check in headless Chromium (installed
#    here when missing; `make test` never pays for it) with one screenshot per module kept in
#    docs/screenshots/. DOCS_RENDER_CHECK=0 skips step 3.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build/docs-work"
SITE="$ROOT/.build/docs"
BASE="${DOCS_HOSTING_BASE:-}"          # e.g. "egwpay" when the site is served under /egwpay/
mkdir -p "$WORK"

"$ROOT/Scripts/build_workspace.sh"

rm -rf "$SITE"; mkdir -p "$SITE"
modules=$(python3 -c 'import json,sys; [print(m["module"], m["path"]) for m in json.load(open(sys.argv[1]))]' "$WORK/modules.json")
failed=""
while read -r module path; do
  graphs="$WORK/graphs/$module"; rm -rf "$graphs"; mkdir -p "$graphs"
  cp "$WORK/symbolgraphs/$module.symbols.json" "$graphs/"
  cp "$WORK/symbolgraphs/$module"@*.symbols.json "$graphs/" 2>/dev/null || true
  catalog=()
  for c in "$path"/*.docc; do [ -d "$c" ] && catalog=("$c"); done
  lower=$(tr '[:upper:]' '[:lower:]' <<< "$module")
  echo "==> docc convert $module${catalog:+ (${catalog[0]#"$ROOT/"})}"
  log="$WORK/docc-$module.log"
  if ! docc convert "${catalog[@]}" --additional-symbol-graph-dir "$graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "com.egw.egwpay.$lower" \
        --transform-for-static-hosting --hosting-base-path "${BASE:+$BASE/}$module" \
        --warnings-as-errors --output-path "$SITE/$module" >"$log" 2>&1; then
    failed="$failed $module"
  fi
  # docc prints a diagnostic per warning; with --warnings-as-errors any of them fails.
  if grep -E '(warning|error):' "$log" >/dev/null; then
    grep -E '(warning|error):' -A3 "$log" | sed 's/^/    /'
    failed="$failed $module"
  fi
done <<< "$modules"
[ -z "$failed" ] || { echo "make docs: docc warnings or errors in:$failed"; exit 1; }

python3 "$ROOT/Scripts/docs_index.py" "$WORK/modules.json" "$SITE" "$BASE"
echo "make docs: site in ${SITE#"$ROOT/"} (serve it: python3 -m http.server -d .build/docs)"

if [ "${DOCS_RENDER_CHECK:-1}" != 0 ]; then
  "$ROOT/Scripts/docs_render_check.sh"
fi
