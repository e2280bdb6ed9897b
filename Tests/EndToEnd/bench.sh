#!/usr/bin/env bash
# make bench, the end-to-end half:
# 1. EndToEndBench: the SDK's own work per loopback card payment (PaymentFlow over the sandbox) beside the
#    bare transport plus a bare JWE encryption, and round trips through the latency proxy. Figures are
#    ratios against baselines measured in the same run. EGW_BENCH_PAYMENTS (default 2000) and
#    EGW_BENCH_MEMORY_PAYMENTS (default 10000) size the rounds.
# 2. WebKitBench: WebKitPagePresenter's time from `present` to the first painted frame of the sandbox's
#    challenge page and the RSS of WebKit's processes, beside webkit-bare-load (a bare WebKitGTK program
#    loading the same page the same way) in the same run, on a private X server. Exit 1 when the
#    presenter's median is over 1.2 x the bare program's.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product EndToEndBench >&2
swift build -c release --product WebKitBench >&2
swift build -c release --product webkit-bare-load >&2
bin="$(swift build -c release --show-bin-path)"
"$bin/EndToEndBench" "$@"
xvfb-run -a "$bin/WebKitBench" "$bin/webkit-bare-load" "${EGW_WEBKIT_ROUNDS:-9}" 2> >(grep -v -e "WARNING" -e '^$' >&2)
