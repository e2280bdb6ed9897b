# EGWPay for Linux: the two commands are `make repl` and `make test`.
# Every target that compiles installs the missing Debian packages first (`deps`).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(CURDIR)
# Build order: a package comes after everything it depends on.
SWIFT_DIRS := Packages/EGWWire Packages/StatusMapping Packages/CardValidation Packages/JWE \
              Packages/GatewaySandbox Packages/PaymentFlow Packages/HeadlessBrowser Packages/PaymentAuthorization Apps/egw-repl \
              $(sort $(patsubst %/Package.swift,%,$(wildcard Tests/*/Package.swift)))
APT_PACKAGES := libssl-dev libcurl4-openssl-dev libedit-dev libmicrohttpd-dev pkg-config tmux python3-venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
VENV := $(ROOT)/.venv
PY := $(VENV)/bin/python

.PHONY: help deps venv test test-swift test-interop repl bench soak lint clean

help:
	@echo "make repl   - start egw-repl on the embedded sandbox gateway"
	@echo "make test   - every package's tests and the end-to-end suite"
	@echo "make bench  - release-built benchmarks (ratios against same-run baselines)"
	@echo "make soak   - 10,000 randomized schedules each: PaymentFlow's faults and the payment sheet's"
	@echo "make lint   - swift format lint with the checked-in .swift-format"
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

test: test-swift test-interop
	@echo "make test: all suites passed"

test-swift: deps
	@for d in $(SWIFT_DIRS); do \
	  [ -f "$$d/Package.swift" ] || continue; \
	  echo "==> swift test in $$d"; \
	  ( cd "$$d" && swift test ) || { echo "make test: FAILED in $$d"; exit 1; }; \
	done

# The interoperability and end-to-end tests in Tests/Interop drive the built
# command-line tools; each tool's path is passed in the environment.
test-interop: deps venv
	@for tool in EGW_JWE_BIN:Packages/JWE:egw-jwe EGW_SANDBOX_BIN:Packages/GatewaySandbox:egw-sandbox \
	             EGW_REPL_BIN:Apps/egw-repl:egw-repl; do \
	  IFS=: read -r var dir product <<< "$$tool"; \
	  export "$$var="; \
	  [ -f "$$dir/Package.swift" ] || continue; \
	  (cd "$$dir" && swift build --product "$$product") || { echo "make test: FAILED building $$product"; exit 1; }; \
	  export "$$var=$$(cd "$$dir" && swift build --show-bin-path)/$$product"; \
	done; \
	if ls Tests/Interop/test_*.py >/dev/null 2>&1; then \
	  echo "==> interop and end-to-end tests in Tests/Interop"; \
	  $(PY) -m unittest discover -s Tests/Interop -p 'test_*.py' -v || { echo "make test: FAILED in Tests/Interop"; exit 1; }; \
	fi

repl: deps
	@if [ ! -f Apps/egw-repl/Package.swift ]; then echo "egw-repl is not built yet"; exit 0; fi
	@cd Apps/egw-repl && swift build -c release --product egw-repl >&2
	@exec "$$(cd Apps/egw-repl && swift build -c release --show-bin-path)/egw-repl" $(ARGS)

# Each package with benchmarks has an executable bench.sh that builds in
# release mode and prints its figures beside a baseline measured in the same run.
bench: deps
	@for d in $(SWIFT_DIRS); do \
	  [ -x "$$d/bench.sh" ] || continue; \
	  echo "==> bench in $$d"; \
	  ( cd "$$d" && ./bench.sh ) || { echo "make bench: FAILED in $$d"; exit 1; }; \
	done

soak: deps
	cd Packages/PaymentFlow && EGW_SCHEDULES=10000 swift test --filter RandomizedSchedule
	cd Packages/PaymentAuthorization && EGW_SCHEDULES=10000 swift test --filter "RandomizedSheet|SheetExploration"

lint:
	swift format lint --strict --configuration .swift-format --recursive Packages Apps $(wildcard Tests/*/Sources Tests/*/Tests)

clean:
	@for d in $(SWIFT_DIRS); do rm -rf "$$d/.build"; done
	rm -rf $(VENV)
