#!/bin/bash
# The accessibility suites on a private session bus (AT-SPI's bus and registry are activated on it) and
# a private X server: nothing of a desktop is read. EGW_CHECKOUT_BIN and EGW_SANDBOX_BIN name the binaries.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
unset DBUS_SESSION_BUS_ADDRESS AT_SPI_BUS_ADDRESS
# System python: python3-pyatspi is a Debian package (not in the interop suites' venv).
exec dbus-run-session -- xvfb-run -a -s "-screen 0 1280x1024x24" \
  bash -c 'export EGW_A11Y_PRIVATE_BUS="$DBUS_SESSION_BUS_ADDRESS"; exec /usr/bin/python3 -m unittest discover -s "$0" -p "test_*.py" "$@"' \
  "$here" "$@" 2> >(grep -v -e 'Failed to set fd limit' -e 'Activating service' -e 'Successfully activated' -e 'SpiRegistry daemon' -e 'Error in GetItems' -e '^$' >&2)
