#!/usr/bin/env bash
# The consumer suite (issue 30): the SDK as an outside app gets it. The repository's working tree is
# committed into a fresh git repository under .build/consumer and tagged 1.0.0 there; two apps outside
# the repository then depend on it by URL and version (`.package(url: "file://...", from: "1.0.0")`):
#   card-check      uses CardValidation alone, built where no libcurl, OpenSSL, libmicrohttpd, GLib, GTK,
#                   WebKit, libpsl or libedit development file is visible (pkg-config's folders and the
#                   headers covered in a private mount namespace); its binary links none of them;
#   pay-challenged  one package of three apps sharing one build folder:
#                   pay-flow-only   the PaymentFlow product alone, built first where pkg-config and the
#                                   compiler see only libcurl's and OpenSSL's development files; its
#                                   binary needs no GLib, GTK, WebKit, libmicrohttpd, libpsl or libedit;
#                   pay-challenged  pays a challenged card through the public API (PaymentFlow,
#                                   HeadlessBrowser) against the embedded gateway (GatewaySandbox), which
#                                   logs the SDK's User-Agent;
#                   seed-samples    seed 000's and 001's Swift samples, UIKit words replaced by GTK's
#                                   (`import EGWPay`, CardFields), paying twice against the sandbox
#                                   (completion, then delegate), under `xvfb-run -a`.
# Usage: Tests/Consumer/run.sh [card-check|pay-challenged]...   (default: both)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
WORK="$ROOT/.build/consumer"
APPS=("$@"); [ ${#APPS[@]} -gt 0 ] || APPS=(card-check pay-challenged)
rm -rf "$WORK"; mkdir -p "$WORK/egwpay-linux"
repo="$WORK/egwpay-linux"

# The working tree as a release: tracked and new files (not ignored), symlinks kept, one commit, tag 1.0.0.
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard \
  | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) | tar -xf - -C "$repo"
version=$(sed -n 's/.*public static let sdkVersion = "\(.*\)".*/\1/p' \
  "$repo/Packages/PaymentFlow/Sources/PaymentFlow/API/PaymentKit.swift")
(cd "$repo" && git init -q && git add -A && git -c user.name=consumer -c user.email=consumer@localhost \
  commit -q -m "release $version" && git tag "$version")
echo "consumer: $repo tagged $version"
[ "$version" = 1.0.0 ] || { echo "consumer: FAILED: PaymentKit.sdkVersion is $version, the apps ask for 1.0.0"; exit 1; }

prepare() {  # app -> its copy under $WORK with the URL filled in
  cp -R "$ROOT/Tests/Consumer/apps/$1" "$WORK/$1"
  sed -i "s#EGWPAY_URL#file://$repo#; s#EGWPAY_IDENTITY#egwpay-linux#g" "$WORK/$1/Package.swift"
}
build() {  # dir, env... -> builds, log in dir/build.log
  local dir=$1; shift
  (cd "$dir" && env "$@" swift build --disable-dependency-cache --cache-path "$WORK/cache" >build.log 2>&1) \
    || { tail -n 40 "$dir/build.log"; echo "consumer: FAILED building ${dir##*/}"; exit 1; }
}

# A private mount namespace (unshare -m; -r -m when not root): empty folders cover pkg-config's folders and
# the C headers of every system library the SDK uses, so neither pkg-config nor SwiftPM's own .pc reader
# nor the compiler can find them. $1 of the script run there: the .pc files put back (none, or libcurl's
# and OpenSSL's). Nothing outside this process sees it.
ns=(unshare -m --propagation private); [ "$(id -u)" = 0 ] || ns=(unshare -r -m --propagation private)
hide='keep=$1; pc=/usr/lib/x86_64-linux-gnu/pkgconfig; [ -d "$pc" ] || pc=/usr/lib/aarch64-linux-gnu/pkgconfig
  kept=$(mktemp -d); for m in $keep; do cp "$pc/$m.pc" "$kept/"; done
  for d in /usr/lib/x86_64-linux-gnu/pkgconfig /usr/lib/aarch64-linux-gnu/pkgconfig /usr/lib/pkgconfig \
    /usr/share/pkgconfig /usr/include/gtk-4.0 /usr/include/webkitgtk-6.0 \
    /usr/include/glib-2.0 /usr/include/libpsl.h /usr/include/microhttpd.h /usr/include/editline; do
    if [ -d "$d" ]; then mount -t tmpfs none "$d"; elif [ -f "$d" ]; then mount --bind /dev/null "$d"; fi; done
  if [ -z "$keep" ]; then
    for d in /usr/include/x86_64-linux-gnu/curl /usr/include/aarch64-linux-gnu/curl /usr/include/curl \
      /usr/include/openssl /usr/include/x86_64-linux-gnu/openssl; do
      if [ -d "$d" ]; then mount -t tmpfs none "$d"; fi; done
  fi
  cp "$kept"/* "$pc/" 2>/dev/null || true
  for module in libcurl libcrypto libssl libmicrohttpd glib-2.0 gtk4 webkitgtk-6.0 libpsl libedit; do
    case " $keep " in *" $module "*) pkg-config --exists "$module" \
      || { echo "consumer: FAILED: pkg-config does not find $module, kept"; exit 1; }; continue;; esac
    if pkg-config --exists "$module"; then echo "consumer: FAILED: pkg-config still finds $module"; exit 1; fi
  done
  for use in curl/curl.h:curl_easy_init openssl/evp.h:EVP_CIPHER_CTX_new microhttpd.h:MHD_start_daemon \
             gtk/gtk.h:gtk_init glib.h:g_main_loop_new libpsl.h:psl_builtin; do
    header=${use%%:*}; symbol=${use#*:}
    case "$keep:$header" in libcurl*:curl/*|libcurl*:openssl/*) continue;; esac
    if printf "#include <%s>\nvoid *f(void) { return (void *)%s; }\n" "$header" "$symbol" \
        | cc -fsyntax-only -Werror -x c - -I/usr/include/gtk-4.0 -I/usr/include/glib-2.0 2>/dev/null; then
      echo "consumer: FAILED: the compiler still finds $header"; exit 1
    fi
  done'
"${ns[@]}" true 2>/dev/null \
  || { echo "consumer: FAILED: the suite needs a mount namespace (unshare -m) to hide the development files"; exit 1; }

for app in "${APPS[@]}"; do
  case "$app" in
  card-check)
    prepare card-check
    # No development files at all.
    "${ns[@]}" bash -euc "$hide"'
      echo "consumer: card-check: pkg-config finds none of libcurl libcrypto libssl libmicrohttpd glib-2.0 gtk4 webkitgtk-6.0 libpsl libedit, nor their headers"
      cd "$2" && swift build --disable-dependency-cache --cache-path "$3" >build.log 2>&1 \
        || { tail -n 40 build.log; echo "consumer: FAILED building card-check without development files"; exit 1; }
    ' consumer "" "$WORK/card-check" "$WORK/cache"
    # SwiftPM reads the .pc file of every system-library target in the graph and, not finding one,
    # only prints an apt hint; none of those targets is built.
    echo "consumer: card-check built; SwiftPM's hints for targets it did not build: $(grep -c "may be able to install" "$WORK/card-check/build.log" || true)"
    bin="$(cd "$WORK/card-check" && swift build --show-bin-path)/card-check"
    out=$("$bin")
    echo "consumer: card-check: $out"
    [ "$out" = "valid: true, brand: visa" ] || { echo "consumer: FAILED: card-check printed $out"; exit 1; }
    if ldd "$bin" | grep -E "libcurl|libssl|libcrypto|libmicrohttpd|libglib|libgtk|libwebkit|libpsl|libedit"; then
      echo "consumer: FAILED: card-check links a system library it does not use"; exit 1
    fi
    ;;
  pay-challenged)
    prepare pay-challenged
    dir="$WORK/pay-challenged"
    # First the PaymentFlow product alone, where only libcurl's and OpenSSL's development files are visible.
    started=$(date +%s)
    "${ns[@]}" bash -euc "$hide"'
      echo "consumer: pay-flow-only: pkg-config finds libcurl libcrypto libssl and none of libmicrohttpd glib-2.0 gtk4 webkitgtk-6.0 libpsl libedit, nor their headers"
      cd "$2" && swift build --product pay-flow-only --disable-dependency-cache --cache-path "$3" >build.log 2>&1 \
        || { tail -n 40 build.log; echo "consumer: FAILED building pay-flow-only with only libcurl and OpenSSL"; exit 1; }
    ' consumer "libcurl libssl libcrypto openssl" "$dir" "$WORK/cache"
    echo "consumer: pay-flow-only built in $(( $(date +%s) - started )) s"
    bindir="$(cd "$dir" && swift build --show-bin-path)"
    needed=$(readelf -d "$bindir/pay-flow-only" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    echo "consumer: pay-flow-only needs: $needed"
    if grep -qE "libglib|libgobject|libgtk|libwebkit|libmicrohttpd|libpsl|libedit" <<<"$needed"; then
      echo "consumer: FAILED: pay-flow-only links a system library PaymentFlow does not use"; exit 1
    fi
    grep -q "libcurl" <<<"$needed" || { echo "consumer: FAILED: pay-flow-only does not link libcurl"; exit 1; }
    out=$("$bindir/pay-flow-only") || { echo "$out"; echo "consumer: FAILED: pay-flow-only"; exit 1; }
    echo "consumer: pay-flow-only: $out"
    # Seed 000: an invalid card is .failed with code 7 (cardValidationFailed) before any request.
    grep -q "outcome: failed, code: 7, sdk: 1.0.0" <<<"$out" || { echo "consumer: FAILED"; exit 1; }
    # Then the others, in the same build folder (PaymentFlow and its dependencies are not compiled again).
    started=$(date +%s)
    build "$dir"
    echo "consumer: pay-challenged and seed-samples built in $(( $(date +%s) - started )) s"
    out=$("$bindir/pay-challenged") || { echo "$out"; echo "consumer: FAILED: pay-challenged"; exit 1; }
    echo "consumer: pay-challenged: $out"
    grep -q "outcome: succeeded, challenged: true, sdk: 1.0.0" <<<"$out" || { echo "consumer: FAILED"; exit 1; }
    grep -q "EGWPay-Linux/1.0.0 (Linux; " <<<"$out" || { echo "consumer: FAILED: no SDK User-Agent logged"; exit 1; }
    out=$(xvfb-run -a "$bindir/seed-samples" 2>&1) || { echo "$out"; echo "consumer: FAILED: seed-samples"; exit 1; }
    echo "consumer: $out"
    grep -q "seed-samples: completion and delegate paid: 2, challenges: 2" <<<"$out" \
      || { echo "consumer: FAILED: seed-samples"; exit 1; }
    ;;
  *) echo "consumer: no app $app"; exit 1 ;;
  esac
done
echo "consumer: every app built from the 1.0.0 tag by URL"
