#!/bin/bash
# The accessibility suites on a private X server and a private session bus (AT-SPI's bus and registry are
# activated on it): nothing of a desktop is read. EGW_CHECKOUT_BIN and EGW_SANDBOX_BIN name the binaries;
# arguments go to `python3 -m unittest` (e.g. -v, -k name).
#
# Bounded and clean, whatever happens inside:
# - Xvfb picks a free display itself (-displayfd: it takes the first display whose lock it wins), so
#   two runs side by side (make test's two lanes, each with its xvfb-run suites) never collide;
# - the whole suite runs under `timeout` (EGW_A11Y_SUITE_SECONDS, default 300), which signals its
#   whole process group (bus, python, egw-checkout, egw-sandbox), then SIGKILLs it 10 s later;
# - on any exit the X server is killed and the bus is ended by dbus-run-session; python's children
#   die with python (PR_SET_PDEATHSIG, harness.py).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"

if [ -z "${EGW_A11Y_INNER:-}" ]; then
  unset DBUS_SESSION_BUS_ADDRESS AT_SPI_BUS_ADDRESS DISPLAY WAYLAND_DISPLAY
  scratch="$(mktemp -d)"
  xvfb=""
  cleanup() {
    if [ -n "$xvfb" ]; then kill "$xvfb" 2>/dev/null || true; wait "$xvfb" 2>/dev/null || true; fi
    rm -rf "$scratch"
  }
  trap cleanup EXIT
  # -fbdir: the screen as the X server holds it, an XWD file the pixel tests read (pixels.py).
  Xvfb -displayfd 3 -screen 0 1280x1024x24 -fbdir "$scratch" -nolisten tcp -noreset 3>"$scratch/display" \
    2>"$scratch/xvfb.log" &
  xvfb=$!
  for _ in $(seq 100); do [ -s "$scratch/display" ] && break; kill -0 "$xvfb" 2>/dev/null || break; sleep 0.1; done
  if [ ! -s "$scratch/display" ]; then
    echo "Tests/Accessibility/run.sh: Xvfb did not start: $(cat "$scratch/xvfb.log")" >&2; exit 1
  fi
  display=":$(head -n1 "$scratch/display")"
  # What the bus, AT-SPI's services and python print that says nothing about the tests.
  printf '%s\n' 'Failed to set fd limit' 'Activating service' 'Successfully activated' 'SpiRegistry daemon' \
    'Error in GetItems' 'X connection to .* broken' \
    '^XIO: ' '^      after [0-9]* requests' '^$' > "$scratch/noise"
  # In the background, so that a TERM or INT to this script (make interrupted) reaches the suite at once.
  DISPLAY="$display" EGW_A11Y_FRAMEBUFFER="$scratch/Xvfb_screen0" EGW_A11Y_INNER=1 timeout -k 10 "${EGW_A11Y_SUITE_SECONDS:-300}" \
    dbus-run-session -- "$0" "$@" \
    > >(grep --line-buffered -v -f "$scratch/noise") 2> >(grep --line-buffered -v -f "$scratch/noise" >&2) &
  suite=$!
  trap 'kill -TERM "$suite" 2>/dev/null || true' TERM INT
  status=0
  while :; do
    wait "$suite" && { status=0; break; } || status=$?
    kill -0 "$suite" 2>/dev/null || break  # a signal interrupted wait: wait again until it has ended
  done
  [ "$status" = 124 ] && echo "Tests/Accessibility/run.sh: FAILED: the suite ran past ${EGW_A11Y_SUITE_SECONDS:-300} s" >&2
  exit "$status"
fi

# Inside dbus-run-session: the bus is ours (harness.require_private_session checks it).
export EGW_A11Y_PRIVATE_BUS="$DBUS_SESSION_BUS_ADDRESS"
# System python: python3-pyatspi is a Debian package (not in the interop suites' venv).
exec /usr/bin/python3 -W ignore::DeprecationWarning -m unittest discover -s "$here" -p "test_*.py" "$@"
