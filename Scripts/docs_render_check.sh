#!/usr/bin/env bash
# The rendered site in headless Chromium: each module's landing page must show its title, its
# symbols' topic headings and the titles of its articles (the text the browser renders, not the
# JSON behind it), and a screenshot per module is kept under docs/screenshots/<Module>.png.
# Debian's chromium is installed when missing (apt-get, sudo when not root).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
SITE="$ROOT/.build/docs"; WORK="$ROOT/.build/docs-work"
BASE="${DOCS_HOSTING_BASE:-}"
SHOTS="$ROOT/docs/screenshots"; mkdir -p "$SHOTS"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
if ! command -v chromium >/dev/null; then
  echo "make docs: installing chromium for the render check"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium
fi
# The site is served from a folder shaped like the hosting base path.
serve="$WORK/serve"; rm -rf "$serve"; mkdir -p "$serve${BASE:+/$BASE}"
ln -s "$SITE"/* "$serve${BASE:+/$BASE}/"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 -d "$serve" >"$WORK/http.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 50); do curl -fs "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
python3 "$ROOT/Scripts/docs_render_check.py" "$WORK/modules.json" "http://127.0.0.1:$port${BASE:+/$BASE}" "$SHOTS" "$WORK"
