#!/usr/bin/env bash
# make bench, the end-to-end half:
# 1. EndToEndBench: a loopback card payment (PaymentFlow over the sandbox) beside a like-for-like baseline:
#    the kit's own two requests (recorded: same URLs, headers, bodies) through a CurlTransport made as the
#    kit makes its own, so a kept connection with reuse on and a new one with reuse off, plus one JWE
#    encryption under the same key; both pairs are printed. EGW_BENCH_ROUNDS (default 7) interleaved
#    rounds, medians of the per-round ratios; each ratio line names what its baseline does and does not
#    include. Then round trips through the latency proxy. Exit 1 (self-check) when a ratio is under 0.9:
#    its baseline did more work than the SDK. EGW_BENCH_PAYMENTS (default 2000, per variant) and
#    EGW_BENCH_MEMORY_PAYMENTS (default 10000) size the rounds.
# 2. WebKitBench: WebKitPagePresenter's time from `present` to the first painted frame of the sandbox's
#    challenge page and the RSS of WebKit's processes, beside webkit-bare-load (a bare WebKitGTK program
#    loading the same page the same way) in the same run, on a private X server. Exit 1 when the
#    presenter's median is over 1.2 x the bare program's, or under 0.9 x (self-check).
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product EndToEndBench >&2
swift build -c release --product WebKitBench >&2
swift build -c release --product webkit-bare-load >&2
bin="$(swift build -c release --show-bin-path)"
"$bin/EndToEndBench" "$@"
xvfb-run -a "$bin/WebKitBench" "$bin/webkit-bare-load" "${EGW_WEBKIT_ROUNDS:-9}" 2> >(grep -v -e "WARNING" -e '^$' >&2)
