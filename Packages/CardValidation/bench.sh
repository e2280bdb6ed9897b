#!/usr/bin/env bash
# CardValidation benchmarks (`make bench`): a release-built executable, figures
# printed beside baselines measured in the same run.
set -euo pipefail
cd "$(dirname "$0")"
swift build -c release --product CardValidationBench >&2
exec "$(swift build -c release --show-bin-path)/CardValidationBench" "$@"
