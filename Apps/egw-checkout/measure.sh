#!/usr/bin/env bash
# egw-checkout's windows beside bare programs drawing the same, in the same run on the same virtual display
# (issue 35): release builds, RUNS rounds (default 7) that interleave every program, medians; each ratio is the
# median of the per-round ratios (a burst of load on the shared machine hits both sides of a round).
#   shop:      egw-checkout's start to its first frame  /  bare-gtk-window --shop (the same GtkBuilder widgets)
#   sheet:     the wallet sheet, asked for to its first frame  /  bare-gtk-window --second-window (a second shop
#              window opened in a running bare GTK program)
#   challenge: the challenge window, present to its first painted frame of the sandbox's page  /
#              bare-webkit-window (a bare WebKitGTK program, a page of the same shape from memory)
# Targets: each at most 1.5x. Each is also printed against the same bare program drawing with egw-checkout's
# renderer choice (GSK_RENDERER=cairo, WebKit without GL compositing): what egw-checkout itself adds. The bare programs run with GTK's and Mesa's defaults (a shader cache on disk, in
# a HOME of their own, warm after their first run); egw-checkout runs with a fresh, empty HOME, XDG_* and
# TMPDIR, scanned after every run: nothing may be written there (exit 1 otherwise).
# Then one egw-checkout makes PAYMENTS (default 100) challenged payments in the WebKit window and prints the
# RSS of WebKit's processes after 10 and after all of them (target at most 1.1x).
# "egw-checkout --browser headless" shows pages with the scripted headless browser (no WebKit);
# "egw-checkout, GSK_RENDERER=gl" is the GL renderer GTK picked before issue 35 (shaders compiled at every start).
set -euo pipefail
cd "$(dirname "$0")"
if [ -z "${EGW_MEASURE_ON_XVFB:-}" ]; then
    swift build -c release --product egw-checkout >&2
    swift build -c release --product bare-gtk-window >&2
    swift build -c release --product bare-webkit-window >&2
    EGW_MEASURE_ON_XVFB=1 exec xvfb-run -a "$0"
fi
RUNS=${RUNS:-7}
PAYMENTS=${PAYMENTS:-100}
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/results"
dirs() {  # dirs ROOT: a HOME, the XDG directories and a TMPDIR under ROOT, as env assignments
    local root=$1
    mkdir -p "$root"/{home,cache,config,data,state,runtime,tmp}
    chmod 700 "$root/runtime"
    echo "HOME=$root/home XDG_CACHE_HOME=$root/cache XDG_CONFIG_HOME=$root/config XDG_DATA_HOME=$root/data" \
        "XDG_STATE_HOME=$root/state XDG_RUNTIME_DIR=$root/runtime TMPDIR=$root/tmp"
}
# shellcheck disable=SC2207
bare_env=($(dirs "$work/bare"))
written="$work/written"
: >"$written"
fresh() {  # fresh: a new directory for one egw-checkout run's HOME, XDG_* and TMPDIR
    mktemp -d -p "$work" sdk.XXXXXX
}
flags="$work/flags"
: >"$flags"
scan() {  # scan ROOT WHAT: records whatever a run left under ROOT, then removes ROOT
    # dconf's change-notification flag (runtime/dconf/user, a byte or two, no data: GSettings' dconf backend
    # makes it on a first read, where Debian's dconf-gsettings-backend is installed) is told apart, as
    # WebKitRuntimeFilesTests tells it apart; anything else counts as written.
    local flag="$1/runtime/dconf/user"
    if [ -f "$flag" ] && [ "$(stat -c %s "$flag")" -le 8 ]; then
        echo "$2: runtime/dconf/user" >>"$flags"
        rm -f "$flag"
        rmdir "$1/runtime/dconf" 2>/dev/null || true
    fi
    (cd "$1" && find . -mindepth 2 | sed "s|^\./|$2: |") >>"$written" || true
    rm -rf "$1"
}
run() {  # run LABEL PATTERN bare|sdk COMMAND...: appends "<ms> <max RSS KiB>" (PATTERN's "after N ms") to LABEL
    local label=$1 pattern=$2 mode=$3 out ms rss root=""
    shift 3
    local environment=("${bare_env[@]}")
    if [ "$mode" = sdk ]; then
        root=$(fresh)
        # shellcheck disable=SC2207
        environment=($(dirs "$root"))
    fi
    out=$({ env "${environment[@]}" /usr/bin/time -f 'TIME %M' "$@"; } 2>&1 | grep -E "$pattern after|^TIME" || true)
    [ -z "$root" ] || scan "$root" "$label"
    ms=$(sed -n "s/.*$pattern after \([0-9]*\) ms.*/\1/p" <<<"$out" | head -1)
    rss=$(sed -n 's/^TIME \([0-9]*\)/\1/p' <<<"$out" | tail -1)
    echo "${ms:-NaN} ${rss:-0}" >>"$work/results/$label"
}
median() { grep -E '^[0-9.]+$' | sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
for _ in $(seq "$RUNS"); do
    run "bare-gtk-window" "first frame" bare "$bin/bare-gtk-window"
    run "bare-gtk-window --shop" "first frame" bare "$bin/bare-gtk-window" --shop
    run "bare-gtk-window --shop, cairo" "first frame" bare env GSK_RENDERER=cairo "$bin/bare-gtk-window" --shop
    run "egw-checkout" "first frame" sdk "$bin/egw-checkout" --exit-when-shown
    run "egw-checkout --browser headless" "first frame" sdk "$bin/egw-checkout" --browser headless --exit-when-shown
    run "egw-checkout, GSK_RENDERER=gl" "first frame" sdk env GSK_RENDERER=gl "$bin/egw-checkout" --exit-when-shown
    run "bare-gtk-window --second-window" "second window first frame" bare "$bin/bare-gtk-window" --second-window
    run "bare-gtk-window --second-window, cairo" "second window first frame" bare env GSK_RENDERER=cairo \
        "$bin/bare-gtk-window" --second-window
    run "egw-checkout --measure sheet" "sheet first frame" sdk "$bin/egw-checkout" --measure sheet
    run "bare-webkit-window" "first frame" bare "$bin/bare-webkit-window"
    run "bare-webkit-window, cairo" "first frame" bare env GSK_RENDERER=cairo WEBKIT_DISABLE_COMPOSITING_MODE=1 \
        "$bin/bare-webkit-window"
    run "egw-checkout --measure challenge" "challenge first frame" sdk "$bin/egw-checkout" --measure challenge
done
for label in "bare-gtk-window" "bare-gtk-window --shop" "bare-gtk-window --shop, cairo" "egw-checkout" \
    "egw-checkout --browser headless" "egw-checkout, GSK_RENDERER=gl" "bare-gtk-window --second-window" \
    "bare-gtk-window --second-window, cairo" "egw-checkout --measure sheet" "bare-webkit-window" \
    "bare-webkit-window, cairo" "egw-checkout --measure challenge"; do
    f="$work/results/$label"
    printf "%-40s first frame %5s ms   peak RSS %7s KiB   (median of %s; rounds: %s)\n" "$label" \
        "$(cut -d' ' -f1 "$f" | median)" "$(cut -d' ' -f2 "$f" | median)" "$RUNS" "$(cut -d' ' -f1 "$f" | paste -sd' ')"
done
ratio() {  # ratio NAME SDK-LABEL BARE-LABEL WHAT-THE-BASELINE-IS
    local value
    value=$(paste -d' ' <(cut -d' ' -f1 "$work/results/$2") <(cut -d' ' -f1 "$work/results/$3") |
        awk '$1 != "NaN" && $2 != "NaN" { print $1 / $2 }' | median)
    printf "%-17s %5.2fx (%s, median of %s paired rounds) [baseline: %s]\n" "$1" "$value" "${5:-target <= 1.5x}" \
        "$RUNS" "$4"
}
ratio "shop (gl)" "egw-checkout, GSK_RENDERER=gl" "bare-gtk-window --shop" \
    "as shop below, with the renderer egw-checkout used before issue 35" "before issue 35, not a target"
ratio shop "egw-checkout" "bare-gtk-window --shop" \
    "bare-gtk-window --shop: the shop's GtkBuilder widgets, plain entries, GTK defaults; not: the sandbox, the SDK's entries"
ratio sheet "egw-checkout --measure sheet" "bare-gtk-window --second-window" \
    "a second shop window in a running bare GTK program; not: the sheet's own layout and machine"
ratio challenge "egw-checkout --measure challenge" "bare-webkit-window" \
    "bare WebKitGTK, ephemeral session, a page of the same shape from memory; not: the sandbox round trip, the presenter"
ratio "shop, same renderer" "egw-checkout" "bare-gtk-window --shop, cairo" \
    "the same with GSK_RENDERER=cairo: what egw-checkout itself adds" "like for like, not a target"
ratio "sheet, same renderer" "egw-checkout --measure sheet" "bare-gtk-window --second-window, cairo" \
    "the same with GSK_RENDERER=cairo" "like for like, not a target"
ratio "challenge, same" "egw-checkout --measure challenge" "bare-webkit-window, cairo" \
    "the same with GSK_RENDERER=cairo WEBKIT_DISABLE_COMPOSITING_MODE=1" "like for like, not a target"
root=$(fresh)
# shellcheck disable=SC2207
environment=($(dirs "$root"))
rss=$(env "${environment[@]}" "$bin/egw-checkout" --measure "payments=$PAYMENTS" 2>/dev/null | grep -E "webkit RSS after|ended" || true)
scan "$root" "egw-checkout --measure payments=$PAYMENTS"
at10=$(sed -n 's/.*after 10 payments \([0-9]*\) KiB/\1/p' <<<"$rss")
atEnd=$(sed -n "s/.*after $PAYMENTS payments \\([0-9]*\\) KiB/\\1/p" <<<"$rss")
if [ -n "$at10" ] && [ -n "$atEnd" ]; then
    awk -v a="$at10" -v b="$atEnd" -v n="$PAYMENTS" 'BEGIN { printf "webkit RSS (WebKit processes, one egw-checkout): %d KiB after 10 payments, %d KiB after %d = %.2fx (target <= 1.1x)\n", a, b, n, b / a }'
else
    echo "webkit RSS: the payments run did not finish: $rss"
fi
if [ -s "$written" ]; then
    echo "written under HOME/XDG/TMPDIR by egw-checkout (must be nothing):"
    sort -u "$written" | sed 's/^/  /'
    exit 1
fi
echo "nothing written under HOME, XDG_* or TMPDIR by any egw-checkout run (scanned after each)"
if [ -s "$flags" ]; then
    echo "not counted: dconf's change-notification flag (runtime/dconf/user, no data) after $(sort -u "$flags" | wc -l) runs"
fi
