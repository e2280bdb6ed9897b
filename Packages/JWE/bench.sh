#!/usr/bin/env bash
# JWE benchmarks (run by `make bench`): encrypt and decrypt rates of a ~120-byte card JSON under RSA-2048,
# each printed beside OpenSSL's own RSA-2048 public-op and private-op rates measured in the same run
# (`openssl speed rsa2048`), as ratios. The RSA operation is the physical limit: targets are
# encrypt >= 0.85 x public-op rate and decrypt >= 0.95 x private-op rate.
#
# Rounds alternate OpenSSL and this package so that both see the same machine load; the best rate of each
# over the rounds is kept. Environment: JWE_BENCH_SECONDS (per measurement, default 2),
# JWE_BENCH_ROUNDS (default 5), JWE_BENCH_STRATEGIES=1 to also compare context strategies.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${JWE_BENCH_SECONDS:-2}"
rounds="${JWE_BENCH_ROUNDS:-5}"

swift build -c release --product jwe-bench >&2
bin="$(swift build -c release --show-bin-path)/jwe-bench"

best() { awk -v a="$1" -v b="$2" 'BEGIN { print (a + 0 > b + 0) ? a : b }'; }

public_rate=0 private_rate=0 encrypt_rate=0 decrypt_rate=0
for round in $(seq 1 "$rounds"); do
    speed="$(openssl speed -seconds "$seconds" rsa2048 2>/dev/null | awk '/^rsa 2048 bits/ { print $(NF-1), $NF }')"
    if [ -z "$speed" ]; then
        echo "bench.sh: could not parse 'openssl speed rsa2048' output" >&2
        exit 1
    fi
    read -r sign verify <<<"$speed"
    ours="$("$bin" --seconds "$seconds")"
    encrypt="$(awk '$1 == "encrypt" { print $2 }' <<<"$ours")"
    decrypt="$(awk '$1 == "decrypt" { print $2 }' <<<"$ours")"
    echo "round $round: openssl public ${verify}/s private ${sign}/s | jwe encrypt ${encrypt}/s decrypt ${decrypt}/s" >&2
    public_rate="$(best "$public_rate" "$verify")"
    private_rate="$(best "$private_rate" "$sign")"
    encrypt_rate="$(best "$encrypt_rate" "$encrypt")"
    decrypt_rate="$(best "$decrypt_rate" "$decrypt")"
done

awk -v pub="$public_rate" -v priv="$private_rate" -v enc="$encrypt_rate" -v dec="$decrypt_rate" \
    -v rounds="$rounds" -v seconds="$seconds" 'BEGIN {
    printf "JWE RSA-OAEP-256 + A256GCM, RSA-2048, ~120-byte card JSON (best of %d rounds of %ss each)\n", rounds, seconds
    printf "  %-34s %12.0f /s\n", "openssl speed rsa2048 public op", pub
    printf "  %-34s %12.0f /s   ratio %.3f  (target >= 0.85)\n", "JWE encrypt", enc, enc / pub
    printf "  %-34s %12.0f /s\n", "openssl speed rsa2048 private op", priv
    printf "  %-34s %12.0f /s   ratio %.3f  (target >= 0.95)\n", "JWE decrypt", dec, dec / priv
}'

if [ "${JWE_BENCH_STRATEGIES:-0}" = 1 ]; then
    echo "context strategies (single thread; pooled is what the library uses):"
    "$bin" --seconds "$seconds" --strategies | awk '$1 ~ /^(en|de)crypt_/ { printf "  %-24s %10s /s\n", $1, $2 }'
fi
