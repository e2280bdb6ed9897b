#!/usr/bin/env bash
# JWE benchmarks (run by `make bench`): encrypt and decrypt rates of a ~120-byte card JSON under RSA-2048,
# each printed beside OpenSSL's own RSA-2048 public-op and private-op rates measured in the same run
# (`openssl speed rsa2048`), as ratios. The RSA operation is the physical limit: targets are
# encrypt >= 0.75 x public-op rate and decrypt >= 0.95 x private-op rate. The library does what OpenSSL's own
# RSA-OAEP does plus a fresh RAND_priv_bytes draw, AES-GCM and base64url per message: no benchmark shapes it.
#
# Rounds alternate OpenSSL and this package so that both see the same machine load; the median rate of each
# over the rounds is compared (robust to a round that caught a burst of load on either side). Both sides
# divide by CPU time (openssl speed's default), so other processes slow neither figure much.
# Environment: JWE_BENCH_SECONDS (per measurement, default 1), JWE_BENCH_ROUNDS (default 9),
# JWE_BENCH_COMPONENTS=1 to also print the cost of each libcrypto step of one message.
set -euo pipefail
cd "$(dirname "$0")"

seconds="${JWE_BENCH_SECONDS:-1}"
rounds="${JWE_BENCH_ROUNDS:-9}"

swift build -c release --product jwe-bench >&2
bin="$(swift build -c release --show-bin-path)/jwe-bench"

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

publics="" privates="" encrypts="" decrypts=""
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
    publics="$publics $verify" privates="$privates $sign" encrypts="$encrypts $encrypt" decrypts="$decrypts $decrypt"
done
public_rate="$(median <<<"$publics")"
private_rate="$(median <<<"$privates")"
encrypt_rate="$(median <<<"$encrypts")"
decrypt_rate="$(median <<<"$decrypts")"

# Self-check: each baseline is one RSA operation, a part of what a JWE message does, so a message can only
# cost more. A cost ratio (JWE time per message / OpenSSL time per RSA op) under 0.9 means the baseline did
# more work than the library (or the two were not measured alike), and the run fails.
awk -v pub="$public_rate" -v priv="$private_rate" -v enc="$encrypt_rate" -v dec="$decrypt_rate" \
    -v rounds="$rounds" -v seconds="$seconds" 'BEGIN {
    printf "JWE RSA-OAEP-256 + A256GCM, RSA-2048, ~120-byte card JSON (median of %d alternating rounds of %ss each)\n", rounds, seconds
    printf "  %-34s %12.0f /s\n", "openssl speed rsa2048 public op", pub
    printf "  %-34s %12.0f /s   ratio %.3f  (target >= 0.75)\n", "JWE encrypt", enc, enc / pub
    printf "  %-34s %12.0f /s\n", "openssl speed rsa2048 private op", priv
    printf "  %-34s %12.0f /s   ratio %.3f  (target >= 0.95)\n", "JWE decrypt", dec, dec / priv
    printf "cost ratios (JWE time per message / baseline time per op; a ratio under 0.9 fails the self-check)\n"
    printf "  encrypt %.3fx  baseline: one raw RSA-2048 public op (openssl speed, no padding); leaves out OAEP, the CEK and IV draws, AES-256-GCM, JSON and base64url\n", pub / enc
    printf "  decrypt %.3fx  baseline: one RSA-2048 private op with CRT and blinding (openssl speed); leaves out OAEP, AES-256-GCM, header parsing and base64url\n", priv / dec
    bad = 0
    if (pub / enc < 0.9) { printf "SELF-CHECK FAILED: encrypt costs %.3fx its baseline: the baseline did more work\n", pub / enc; bad = 1 }
    if (priv / dec < 0.9) { printf "SELF-CHECK FAILED: decrypt costs %.3fx its baseline: the baseline did more work\n", priv / dec; bad = 1 }
    if (!bad) print "self-check: both cost ratios are at least 0.9"
    exit bad
}'

if [ "${JWE_BENCH_COMPONENTS:-0}" = 1 ]; then
    echo "libcrypto steps of one message (CPU time per call):"
    "$bin" --seconds "$seconds" --only components | awk '$1 == "component" { sub(/^component /, "  "); print }'
fi
