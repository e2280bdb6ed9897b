#!/usr/bin/env bash
# Start-up time (to the first frame) and peak RSS of egw-checkout beside a bare GTK 4 window, in the same
# run on the same virtual display: release builds, RUNS runs each (default 7), interleaved; medians.
# "egw-checkout --no-sandbox" is the shop without its embedded gateway (URLs that are never called before
# the first frame): the difference to the plain run is the sandbox's start (its RSA key among it).
# "egw-checkout --browser headless" shows pages with the scripted headless browser instead of WebKit:
# the difference to the plain run is what getting WebKit ready costs before the first frame.
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${EGW_MEASURE_ON_XVFB:-}" ]; then
    swift build -c release --product egw-checkout >&2
    swift build -c release --product bare-gtk-window >&2
    EGW_MEASURE_ON_XVFB=1 exec xvfb-run -a "$0"
fi
RUNS=${RUNS:-7}
bin=$(swift build -c release --show-bin-path)
run() {  # run FILE COMMAND...: appends "<first-frame ms> <exit ms> <max RSS KiB>" to FILE
    local file=$1 out
    shift
    out=$({ /usr/bin/time -f 'TIME %e %M' "$@" --exit-when-shown; } 2>&1 | grep -E 'first frame|^TIME')
    local frame wall rss
    frame=$(sed -n 's/.*first frame after \([0-9]*\) ms/\1/p' <<<"$out")
    read -r wall rss < <(sed -n 's/^TIME \([0-9.]*\) \([0-9]*\)/\1 \2/p' <<<"$out")
    echo "$frame $(awk -v s="$wall" 'BEGIN { printf "%d", s * 1000 }') $rss" >>"$file"
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
work=$(mktemp -d)
for _ in $(seq "$RUNS"); do
    run "$work/bare-gtk-window" "$bin/bare-gtk-window"
    run "$work/egw-checkout" "$bin/egw-checkout"
    run "$work/egw-checkout --browser headless" "$bin/egw-checkout" --browser headless
    run "$work/egw-checkout --no-sandbox" "$bin/egw-checkout" --no-sandbox --checkout-api-base-url http://127.0.0.1:9 \
        --checkout-base-url http://127.0.0.1:9 --merchant-base-url http://127.0.0.1:9
done
for label in bare-gtk-window egw-checkout "egw-checkout --browser headless" "egw-checkout --no-sandbox"; do
    f="$work/$label"
    printf "%-34s first frame %5s ms   exit %5s ms   max RSS %6s KiB   (median of %s)\n" "$label" \
        "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" "$(cut -d' ' -f3 "$f" | median)" "$RUNS"
done
rm -rf "$work"
