# EGWPay for Linux: the two commands are `make repl` and `make test`.
# Every target that compiles installs the missing Debian packages first (`deps`).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(CURDIR)
# Build order: a package comes after everything it depends on (tests included), as the manifests say:
# TestSupport and FuzzSupport depend on nothing; the SDK's products on each other only; the sandbox on
# EGWWire, StatusMapping and JWE; GLibMainQueue (on GLib alone) before the GTK packages that share it;
# the apps after the packages; Tests/* (EndToEnd: every suite that pays across packages; UIEndToEnd:
# the GTK sheet against the sandbox) last.
SWIFT_DIRS := Packages/TestSupport Packages/FuzzSupport Packages/BuyerText Packages/EGWWire Packages/StatusMapping Packages/CardValidation \
              Packages/JWE Packages/GatewaySandbox Packages/PaymentFlow Packages/EGWPay Packages/HeadlessBrowser \
              Packages/PaymentAuthorization Packages/GLibMainQueue Packages/WebKitPresenter Packages/PaymentUI Apps/egw-repl \
              Apps/egw-checkout \
              $(sort $(patsubst %/Package.swift,%,$(wildcard Tests/*/Package.swift)))
APT_PACKAGES := libssl-dev libcurl4-openssl-dev libedit-dev libmicrohttpd-dev libpsl-dev pkg-config tmux python3-venv \
                libwebkitgtk-6.0-dev libgtk-4-dev xvfb xauth strace gdb xclip \
                python3-pyatspi at-spi2-core dbus-daemon xdotool x11-utils
# Suites that open windows (WebKitGTK, GTK 4) run on a private X server (`xvfb-run -a`), display or not.
# Under the sanitizers they draw with cairo: Mesa's llvmpipe registers JIT frames with libgcc's unwinder,
# and ASan's slow unwind (fast_unwind_on_malloc=0) then deadlocks inside _Unwind_Find_FDE.
DISPLAY_DIRS := Packages/WebKitPresenter Packages/PaymentUI Apps/egw-checkout Tests/EndToEnd Tests/UIEndToEnd
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python

# Packages with fuzz targets: an executable target `<Name>Fuzz` in `Fuzz/Harness`, one folder per target.
FUZZ_DIRS := $(foreach d,$(SWIFT_DIRS),$(if $(wildcard $(d)/Fuzz/Harness),$(d)))
FUZZ_SECONDS ?= 300
# Passed to the fuzz build only: the libFuzzer entry (-DEGW_FUZZ), coverage and ASan, @testable
# access to internal parsers in a release build, and lld (gold fails to link ASan + libFuzzer).
FUZZ_BUILD_FLAGS := -c release --build-path .build-fuzz --toolset $(ROOT)/Packages/FuzzSupport/lld-toolset.json \
                    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DEGW_FUZZ -Xswiftc -enable-testing
# The sanitizer runs: what each reports on (halt_on_error=0 lists every race, not just the first),
# and the checked-in suppressions, one reason per line.
SANITIZE_ENV := TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1 suppressions=$(ROOT)/Sanitizers/tsan.supp" \
                ASAN_OPTIONS="detect_leaks=1 detect_stack_use_after_return=1 fast_unwind_on_malloc=0" \
                LSAN_OPTIONS="suppressions=$(ROOT)/Sanitizers/lsan.supp print_suppressions=0"
# PaymentFlow's randomized schedules under the sanitizers: 200 of the usual 1,000 (make soak runs 10,000).
SANITIZE_KNOBS := EGW_SCHEDULES=200

.PHONY: help deps venv test test-build test-lane-a test-lane-b trust-store-before test-swift test-each root-manifest-check test-interop test-a11y test-consumer repl bench soak lint clean fuzz sanitize demo screenshots \
        docs api-check api-baseline coverage

help:
	@echo "make repl   - start egw-repl on the embedded sandbox gateway"
	@echo "make test   - every package's tests and the end-to-end suite, built once through the root Package.swift"
	@echo "make test-a11y - the AT-SPI (screen reader) and keyboard-only suites on egw-checkout (part of make test)"
	@echo "make test-consumer - outside apps built by URL from the working tree tagged 1.0.0 (Tests/Consumer)"
	@echo "make test-each - swift test in every package's own folder (each builds its dependencies again)"
	@echo "make demo   - start egw-checkout, the GTK 4 demo shop, on the embedded sandbox"
	@echo "make screenshots - docs/screenshots: the card form, the sheet, a result, and the WebKit pages over a GTK app"
	@echo "make bench  - release-built benchmarks (ratios against same-run baselines)"
	@echo "make soak   - 10,000 randomized schedules each: PaymentFlow's faults and the payment sheet's"
	@echo "make lint   - swift format lint with the checked-in .swift-format"
	@echo "make fuzz   - every libFuzzer target for FUZZ_SECONDS (default 300) each; crashes go to Fuzz/<target>/regressions"
	@echo "make sanitize - every package's tests under ThreadSanitizer, then AddressSanitizer + LeakSanitizer"
	@echo "make docs   - DocC for every library product as one static site in .build/docs (warnings fail)"
	@echo "make api-check - each library product's public API against the baseline in api/ (a break fails)"
	@echo "make api-baseline - rewrite api/ from today's public API (commit it with a deliberate break)"
	@echo "make coverage - every package's tests with coverage: a table per package, the 10 least-covered files"
	@echo "make deps   - install missing Debian packages (apt-get; sudo when not root)"
	@echo "make clean  - remove build products"

deps:
	@missing=""; \
	for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  $(SUDO) apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

# A private virtual environment with python jwcrypto, the independent JOSE
# implementation the interoperability tests compare against.
venv: $(VENV)/.ready
$(VENV)/.ready: | deps
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check jwcrypto
	touch $@

# `make test` builds once, through the root Package.swift (generated from every folder's manifest by
# Scripts/root_manifest.py; the check fails while it is stale), in one build folder (.build), so each
# module is compiled once. Then each folder's test targets run in a process of their own, as they do in
# the folder (`--filter` by test target), under `xvfb-run -a` for the windowed ones; then the interop
# suites drive the same build's binaries. `make test-each` is the old way: `swift test` in every folder.
# `make test` leaves the machine's trust store as it found it: a digest of /etc/ssl/certs (every entry's
# name, type, link target, size and mtime, the directory's own included) is taken first and compared
# last; a test that added, changed or removed anything there (even put back) fails the run.
CERTS_DIGEST := find /etc/ssl/certs -printf '%P|%y|%l|%s|%T@\n' 2>/dev/null | LC_ALL=C sort | sha256sum
CERTS_BEFORE := $(ROOT)/.build/etc-ssl-certs.before

# After the one build, the suites run in two lanes side by side. Most of a suite's wall time is waiting
# on timers and loopback round trips, not CPU (a clean run spends about 9 CPU-minutes in 16 wall-minutes),
# so two lanes share the two cores without changing what any test does. Lane A: the cross-package suites
# (Tests/*), the accessibility suites and the consumer apps; lane B: every package's and app's own tests, the interop suites and
# the API guard. Each lane writes its whole output to .build/make-test-lane-{a,b}.log and shows its
# "==>" steps as they start; when both end, both logs are printed, and a failed lane's last lines are
# printed again at the very end, so the tail of a CI log always names what failed.
# Each lane's targets still run alone too (`make test-swift`, `make test-interop`, ...).
LANE_LOG := $(ROOT)/.build/make-test-lane
# Each lane's X servers come from a range of its own (`xvfb-run -n N -a`; `-n` before `-a`, which
# searches from N at once): Debian's xvfb-run retries another number when two pick one, and the ranges
# keep the lanes from meeting at all; the accessibility suite's Xvfb picks its display itself (-displayfd).
XVFB_LANE_A := 120
XVFB_LANE_B := 160
test: trust-store-before test-build venv
	@rm -f $(LANE_LOG)-*; \
	for lane in a b; do \
	  { rc=0; $(MAKE) --no-print-directory test-lane-$$lane EGW_BUILT=1 2>&1 || rc=$$?; echo $$rc > $(LANE_LOG)-$$lane.rc; } \
	    | tee $(LANE_LOG)-$$lane.log | { grep --line-buffered -E '^(==>|make test)' || true; } | sed -u "s/^/[lane $$lane] /" & \
	done; \
	wait; \
	failed=""; for lane in a b; do echo "==== lane $$lane, whole output"; cat $(LANE_LOG)-$$lane.log; \
	  [ "$$(cat $(LANE_LOG)-$$lane.rc)" = 0 ] || failed="$$failed $$lane"; done; \
	for lane in $$failed; do echo "==== lane $$lane FAILED; its last 80 lines:"; tail -n 80 $(LANE_LOG)-$$lane.log; \
	  grep -E 'FAILED|error:|failed \(' $(LANE_LOG)-$$lane.log | tail -n 20; done; \
	[ -z "$$failed" ] || { echo "make test: FAILED in lane(s)$$failed (logs: $(LANE_LOG)-*.log)"; exit 1; }
	@[ "$$($(CERTS_DIGEST))" = "$$(cat $(CERTS_BEFORE))" ] || { echo "make test: FAILED: the run changed /etc/ssl/certs"; exit 1; }
	@echo "make test: all suites passed"

test-lane-a:
	@start=$$(date +%s); $(call run_swift_tests,suites,$(XVFB_LANE_A)); \
	$(MAKE) --no-print-directory test-a11y test-consumer EGW_BUILT=1; \
	echo "make test: lane A (Tests/*, accessibility, consumer apps) took $$(( $$(date +%s) - start )) s"

test-lane-b:
	@start=$$(date +%s); $(call run_swift_tests,packages,$(XVFB_LANE_B)); $(MAKE) --no-print-directory test-interop api-check EGW_BUILT=1; \
	echo "make test: lane B (packages, apps, interop, API guard) took $$(( $$(date +%s) - start )) s"

trust-store-before:
	@mkdir -p $(dir $(CERTS_BEFORE)) && $(CERTS_DIGEST) > $(CERTS_BEFORE)

# Tests/Consumer: the working tree tagged 1.0.0 in a fresh repository, two outside apps built from it by URL.
test-consumer: deps
	@Tests/Consumer/run.sh

root-manifest-check:
	@python3 Scripts/root_manifest.py --check

# The root build every suite below runs from; EGW_BUILT=1 (set by `make test` for its lanes) skips it.
test-build: deps
	@if [ -z "$(EGW_BUILT)" ]; then python3 Scripts/root_manifest.py --check; echo "==> swift build --build-tests (the root package: every module once)"; \
	  swift build --build-tests || { echo "make test: FAILED building the root package"; exit 1; }; fi

# Each folder's test targets in a process of their own; $(1) is all, packages (Packages/*, Apps/*) or
# suites (Tests/*); $(2) the first X display number `xvfb-run -a` tries (99, its own default, if empty).
# `--ignore-lock`: SwiftPM locks the build folder for every command, so without it the
# two lanes' test runs would wait for each other in turn; these runs only read the finished build.
define run_swift_tests
python3 Scripts/root_manifest.py --targets --lines | while read -r d filter; do \
  case "$(1):$$d" in packages:Tests/*|suites:Packages/*|suites:Apps/*) continue;; esac; \
  run=""; case " $(DISPLAY_DIRS) " in *" $$d "*) run="xvfb-run -n $(or $(2),99) -a";; esac; \
  echo "==> $${run:+$$run }swift test --skip-build --ignore-lock --filter '$$filter' ($$d)"; \
  t=$$(date +%s); $$run swift test --skip-build --ignore-lock --filter "$$filter" </dev/null || { echo "make test: FAILED in $$d"; exit 1; }; \
  echo "==> $$d passed in $$(( $$(date +%s) - t )) s"; \
done
endef

test-swift: test-build
	@$(call run_swift_tests,all)

test-each: deps
	@for d in $(SWIFT_DIRS); do \
	  [ -f "$$d/Package.swift" ] || continue; \
	  run=""; case " $(DISPLAY_DIRS) " in *" $$d "*) run="xvfb-run -a";; esac; \
	  echo "==> $${run:+$$run }swift test in $$d"; \
	  ( cd "$$d" && $$run swift test ) || { echo "make test-each: FAILED in $$d"; exit 1; }; \
	done

# The interoperability and end-to-end tests in Tests/Interop drive the command-line tools of the root
# build, and the connection recorder (test_connections_recorded.py) runs the root test bundle (with the
# end-to-end and egw-checkout flows named) under strace; each path is passed in the environment.
test-interop: test-build venv
	@bin="$$(swift build --ignore-lock --show-bin-path)"; \
	export EGW_JWE_BIN="$$bin/egw-jwe" EGW_SANDBOX_BIN="$$bin/egw-sandbox" EGW_REPL_BIN="$$bin/egw-repl" \
	       EGW_REPL_WEBKIT_BIN="$$bin/egw-repl-webkit" EGW_ENDTOEND_XCTEST="$$bin/EGWPayPackageTests.xctest" \
	       EGW_CHECKOUT_XCTEST="$$bin/EGWPayPackageTests.xctest"; \
	if ls Tests/Interop/test_*.py >/dev/null 2>&1; then \
	  echo "==> interop and end-to-end tests in Tests/Interop"; \
	  $(PY) -m unittest discover -s Tests/Interop -p 'test_*.py' -v || { echo "make test: FAILED in Tests/Interop"; exit 1; }; \
	fi

# What a screen reader and a keyboard-only buyer get (Tests/Accessibility): egw-checkout of the root build
# read over AT-SPI (python3-pyatspi) and driven by XTest key events (xdotool), on a private session bus
# and X server (run.sh: dbus-run-session, Xvfb -displayfd), in every language BuyerText has. Every wait
# is bounded; the suite as a whole by run.sh's `timeout` (EGW_A11Y_SUITE_SECONDS, 300 s; about 35 s).
test-a11y: test-build
	@bin="$$(swift build --ignore-lock --show-bin-path)"; \
	echo "==> accessibility and keyboard-only tests in Tests/Accessibility"; \
	EGW_CHECKOUT_BIN="$$bin/egw-checkout" EGW_SANDBOX_BIN="$$bin/egw-sandbox" Tests/Accessibility/run.sh -v \
	  || { echo "make test: FAILED in Tests/Accessibility"; exit 1; }

repl: deps
	@if [ ! -f Apps/egw-repl/Package.swift ]; then echo "egw-repl is not built yet"; exit 0; fi
	@cd Apps/egw-repl && swift build -c release --product egw-repl >&2
	@case " $(ARGS) " in *" --browser webkit"*|*" --browser=webkit"*|*" --screenshots"*) \
	  cd Apps/egw-repl && swift build -c release --product egw-repl-webkit >&2;; esac
	@exec "$$(cd Apps/egw-repl && swift build -c release --show-bin-path)/egw-repl" $(ARGS)

# egw-checkout, the GTK 4 shop (Apps/egw-checkout). Without a display it says how to see it.
demo: deps
	@cd Apps/egw-checkout && swift build --product egw-checkout >&2
	@bin="$$(cd Apps/egw-checkout && swift build --show-bin-path)/egw-checkout"; \
	if [ -z "$${DISPLAY:-}$${WAYLAND_DISPLAY:-}" ]; then \
	  echo "make demo: no display here. On a desktop, run $$bin"; \
	  echo "  or see it played on a virtual display: make screenshots (PNGs in docs/screenshots)"; \
	else exec "$$bin" $(ARGS); fi

# The README's pictures: egw-checkout's ScreenshotTests plays a buyer on the real windows under Xvfb, and
# PaymentUI's sheet window shows a payment in doubt (sheet-confirming-payment.png); the accessibility
# suite's SeenAsPeopleSee writes the card form, a failed validation and the sheet in the default,
# HighContrast and dark themes and at twice the text size (*-default, *-high-contrast, *-dark, *-large-text)
# from the X server's frame buffer;
# then the WebKit pages as a buyer sees them, from a private Xvfb screen's frame buffer (-fbdir).
SCREEN := 87
screenshots: deps
	cd Apps/egw-checkout && EGW_SCREENSHOTS="$(ROOT)/docs/screenshots" xvfb-run -a -s "-screen 0 1280x1024x24" \
	  swift test --filter ScreenshotTests
	cd Packages/PaymentUI && EGW_SCREENSHOTS="$(ROOT)/docs/screenshots" xvfb-run -a -s "-screen 0 1280x1024x24" \
	  swift test --filter testAPaymentInDoubtIsShownAsBeingConfirmedNeverAsFailed
	@swift build --product egw-checkout && swift build --product egw-sandbox && bin="$$(swift build --show-bin-path)" && \
	  EGW_A11Y_SCREENSHOTS="$(ROOT)/docs/screenshots" EGW_CHECKOUT_BIN="$$bin/egw-checkout" EGW_SANDBOX_BIN="$$bin/egw-sandbox" \
	  Tests/Accessibility/run.sh -k SeenAsPeopleSee
	@cd Tests/EndToEnd && swift build --product WebKitScreenshots
	@fb=$$(mktemp -d); Xvfb :$(SCREEN) -screen 0 1280x800x24 -fbdir "$$fb" -nolisten tcp & xvfb=$$!; \
	trap 'kill $$xvfb; wait $$xvfb 2>/dev/null; rm -rf "$$fb"' EXIT; sleep 1; mkdir -p docs/screenshots; \
	DISPLAY=:$(SCREEN) "$$(cd Tests/EndToEnd && swift build --show-bin-path)/WebKitScreenshots" \
	  "$(ROOT)/docs/screenshots" "$$fb/Xvfb_screen0" 2>/dev/null

# Each package with benchmarks has an executable bench.sh that builds in
# release mode and prints its figures beside a baseline measured in the same run.
bench: deps
	@for d in $(SWIFT_DIRS); do \
	  [ -x "$$d/bench.sh" ] || continue; \
	  echo "==> bench in $$d"; \
	  ( cd "$$d" && ./bench.sh ) || { echo "make bench: FAILED in $$d"; exit 1; }; \
	done

soak: deps
	cd Tests/EndToEnd && EGW_SCHEDULES=10000 swift test --filter RandomizedSchedule
	cd Packages/PaymentAuthorization && EGW_SCHEDULES=10000 swift test --filter "RandomizedSheet|SheetExploration"

lint:
	swift format lint --strict --configuration .swift-format --recursive Packages Apps $(wildcard Tests/*/Sources Tests/*/Tests)

# Each package's fuzz executable is built once; each target runs for FUZZ_SECONDS from its checked-in
# seeds (read only) into a scratch corpus under .build-fuzz. A crash, a timeout (10 s per input), an
# out-of-memory or a leak is saved by libFuzzer under Fuzz/<target>/regressions/, which `make test`
# replays from then on; the run goes on to the next target and fails at the end.
fuzz: deps
	@found=0; \
	for d in $(FUZZ_DIRS); do \
	  product=$$(sed -n 's/.*name: "\([A-Za-z]*Fuzz\)".*/\1/p' "$$d/Package.swift" | head -1); \
	  echo "==> building $$product in $$d"; \
	  (cd "$$d" && swift build $(FUZZ_BUILD_FLAGS) --product "$$product") || { echo "make fuzz: FAILED building $$product"; exit 1; }; \
	  bin="$$(cd "$$d" && swift build $(FUZZ_BUILD_FLAGS) --show-bin-path)/$$product"; \
	  for target in $$("$$bin" --list); do \
	    folder="$(ROOT)/$$d/Fuzz/$$target"; work="$(ROOT)/$$d/.build-fuzz/corpus/$$target"; \
	    log="$(ROOT)/$$d/.build-fuzz/$$target.log"; \
	    mkdir -p "$$work" "$$folder/regressions"; \
	    dict=(); [ -f "$$folder/dict" ] && dict=(-dict="$$folder/dict"); \
	    before=$$(ls "$$folder/regressions" | wc -l); \
	    rc=0; SWIFT_BACKTRACE=enable=no "$$bin" "$$target" -max_total_time=$(FUZZ_SECONDS) -timeout=10 -print_final_stats=1 \
	      -artifact_prefix="$$folder/regressions/" "$${dict[@]}" "$$work" "$$folder/corpus" >"$$log" 2>&1 || rc=$$?; \
	    execs=$$(sed -n 's/^stat::number_of_executed_units: *//p' "$$log" | tail -1); \
	    new=$$(( $$(ls "$$folder/regressions" | wc -l) - before )); \
	    printf 'fuzz %-28s %10s execs  corpus %5s (seeds %s)  findings %s\n' "$${d##*/}/$$target" "$${execs:-?}" \
	      "$$(ls "$$work" | wc -l)" "$$(ls "$$folder/corpus" | wc -l)" "$$new"; \
	    if [ "$$rc" != 0 ] || [ "$$new" != 0 ]; then \
	      found=1; echo "  exit $$rc; last lines of $$log:"; tail -n 25 "$$log" | sed 's/^/    /'; \
	    fi; \
	  done; \
	done; \
	[ "$$found" = 0 ] || { echo "make fuzz: findings saved under Fuzz/*/regressions"; exit 1; }; \
	echo "make fuzz: no findings"

# Every package's suite under ThreadSanitizer, then under AddressSanitizer with LeakSanitizer, each in
# its own build folder so the plain build stays as it is.
sanitize: deps
	@failed=""; \
	for mode in thread address; do \
	  for d in $(SWIFT_DIRS); do \
	    [ -f "$$d/Package.swift" ] || continue; \
	    run=""; case " $(DISPLAY_DIRS) " in *" $$d "*) run="env GSK_RENDERER=cairo xvfb-run -a";; esac; \
	    echo "==> swift test --sanitize=$$mode in $$d"; \
	    ( cd "$$d" && $(SANITIZE_ENV) $(SANITIZE_KNOBS) $$run swift test --sanitize=$$mode --scratch-path .build-$$mode ) \
	      || failed="$$failed $$mode:$$d"; \
	  done; \
	done; \
	[ -z "$$failed" ] || { echo "make sanitize: FAILED in$$failed"; exit 1; }; \
	echo "make sanitize: every suite clean under both sanitizers"

# DocC, the API guard and coverage (Scripts/). The library products are found in each
# Packages/*/Package.swift (Scripts/sdk_products.py), so a new package is picked up by all three.
# docs and api-check share one build: the docs workspace in .build/docs-work, every SDK module
# compiled once with -emit-symbol-graph, plus every article's listings.
docs: deps
	@Scripts/docs.sh

api-check: deps
	@Scripts/build_workspace.sh
	@python3 Scripts/api_check.py check .build/docs-work/symbolgraphs .build/docs-work/modules.json

api-baseline: deps
	@Scripts/build_workspace.sh
	@python3 Scripts/api_check.py baseline .build/docs-work/symbolgraphs .build/docs-work/modules.json

coverage: deps
	@Scripts/coverage.sh $(SWIFT_DIRS)

clean:
	@for d in $(SWIFT_DIRS); do rm -rf "$$d/.build" "$$d/.build-fuzz" "$$d/.build-thread" "$$d/.build-address"; done
	rm -rf $(VENV) .build
