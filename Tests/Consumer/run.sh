#!/usr/bin/env bash
# The consumer suite (issue 30): the SDK as an outside app gets it. The repository's working tree is
# committed into a fresh git repository under .build/consumer and tagged 1.0.0 there; two apps outside
# the repository then depend on it by URL and version (`.package(url: "file://...", from: "1.0.0")`):
#   card-check      uses CardValidation alone, built where no libcurl, OpenSSL, libmicrohttpd, GLib, GTK,
#                   WebKit, libpsl or libedit development file is visible (pkg-config's folders and the
#                   headers covered in a private mount namespace); its binary links none of them;
#   pay-challenged  pays a challenged card through the public API (PaymentFlow, HeadlessBrowser) against
#                   the embedded gateway (GatewaySandbox), which logs the SDK's User-Agent.
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

for app in "${APPS[@]}"; do
  case "$app" in
  card-check)
    prepare card-check
    # No development files: in a private mount namespace (unshare -m; -r -m when not root) empty folders cover
    # pkg-config's folders and the C headers of every system library the SDK uses, so neither pkg-config
    # nor SwiftPM's own .pc reader nor the compiler can find any of them. Nothing outside this process
    # sees it.
    hide='for d in /usr/lib/x86_64-linux-gnu/pkgconfig /usr/lib/aarch64-linux-gnu/pkgconfig /usr/lib/pkgconfig \
      /usr/share/pkgconfig /usr/include/x86_64-linux-gnu/curl /usr/include/aarch64-linux-gnu/curl /usr/include/curl \
      /usr/include/openssl /usr/include/x86_64-linux-gnu/openssl /usr/include/gtk-4.0 /usr/include/webkitgtk-6.0 \
      /usr/include/glib-2.0 /usr/include/libpsl.h /usr/include/microhttpd.h /usr/include/editline; do
      if [ -d "$d" ]; then mount -t tmpfs none "$d"; elif [ -f "$d" ]; then mount --bind /dev/null "$d"; fi; done'
    ns=(unshare -m --propagation private); [ "$(id -u)" = 0 ] || ns=(unshare -r -m --propagation private)
    "${ns[@]}" true 2>/dev/null \
      || { echo "consumer: FAILED: card-check needs a mount namespace (unshare -m) to hide the development files"; exit 1; }
    "${ns[@]}" bash -euc "$hide"'
      for module in libcurl libcrypto libssl libmicrohttpd glib-2.0 gtk4 webkitgtk-6.0 libpsl libedit; do
        if pkg-config --exists "$module"; then echo "consumer: FAILED: pkg-config still finds $module"; exit 1; fi
      done
      for use in curl/curl.h:curl_easy_init openssl/evp.h:EVP_CIPHER_CTX_new microhttpd.h:MHD_start_daemon \
                 gtk/gtk.h:gtk_init glib.h:g_main_loop_new libpsl.h:psl_builtin; do
        header=${use%%:*}; symbol=${use#*:}
        if printf "#include <%s>\nvoid *f(void) { return (void *)%s; }\n" "$header" "$symbol" \
            | cc -fsyntax-only -Werror -x c - -I/usr/include/gtk-4.0 -I/usr/include/glib-2.0 2>/dev/null; then
          echo "consumer: FAILED: the compiler still finds $header"; exit 1
        fi
      done
      echo "consumer: card-check: pkg-config finds none of libcurl libcrypto libssl libmicrohttpd glib-2.0 gtk4 webkitgtk-6.0 libpsl libedit, nor their headers"
      cd "$0" && swift build --disable-dependency-cache --cache-path "$1" >build.log 2>&1 \
        || { tail -n 40 build.log; echo "consumer: FAILED building card-check without development files"; exit 1; }
    ' "$WORK/card-check" "$WORK/cache"
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
    build "$WORK/pay-challenged"
    out=$("$(cd "$WORK/pay-challenged" && swift build --show-bin-path)/pay-challenged") \
      || { echo "$out"; echo "consumer: FAILED: pay-challenged"; exit 1; }
    echo "consumer: pay-challenged: $out"
    grep -q "outcome: succeeded, challenged: true, sdk: 1.0.0" <<<"$out" || { echo "consumer: FAILED"; exit 1; }
    grep -q "EGWPay-Linux/1.0.0 (Linux; " <<<"$out" || { echo "consumer: FAILED: no SDK User-Agent logged"; exit 1; }
    ;;
  *) echo "consumer: no app $app"; exit 1 ;;
  esac
done
echo "consumer: every app built from the 1.0.0 tag by URL"
