#!/usr/bin/env bash
# The per-payment and latency benchmarks (PaymentFlow over the sandbox): builds the bench executable in release mode and runs it.
# Figures are ratios against a baseline measured in the same run (bare transport
# round trips and a bare JWE encryption). EGW_BENCH_PAYMENTS (default 2000) and
# EGW_BENCH_MEMORY_PAYMENTS (default 10000) size the rounds.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product EndToEndBench >&2
exec "$(swift build -c release --show-bin-path)/EndToEndBench" "$@"
