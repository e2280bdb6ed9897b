#!/usr/bin/env bash
# make bench: WebKitPagePresenter's time from `present` to the first painted frame of the
# sandbox's challenge page and the RSS of WebKit's processes, beside webkit-bare-load (a bare
# WebKitGTK program loading the same page the same way) in the same run. Release build, on a
# private X server. Exit 1 when the presenter's median is over 1.2 × the bare program's.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product WebKitBench >&2
swift build -c release --product webkit-bare-load >&2
bin="$(swift build -c release --show-bin-path)"
xvfb-run -a "$bin/WebKitBench" "$bin/webkit-bare-load" "${EGW_WEBKIT_ROUNDS:-9}" 2> >(grep -v -e "WARNING" -e '^$' >&2)
