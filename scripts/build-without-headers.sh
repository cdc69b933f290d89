#!/usr/bin/env bash
# Builds the release tool as the README's first command does, on a machine that has only the
# Swift toolchain: OpenSSL's and libxcrypt's headers and static libraries (libssl-dev,
# libcrypt-dev) hidden in a mount namespace of its own, then runs the binary.
#
#   scripts/build-without-headers.sh [SCRATCH]     (as root; SCRATCH defaults to .build-noheaders)
#
# Where the headers are installed, it first compiles Sources/CTLS/tls.c against them with
# CTLS_CHECK_HEADERS: the adapter's own declarations of OpenSSL's and crypt(3)'s functions and
# values are asserted to be the headers' (under CI=true, headers missing is a failure).
# Exits non-zero when the check or the build fails, when the binary needs libssl, libcrypto
# or libcrypt to start, or when `netpath --version` or `netpath status` does not run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
scratch=${1:-.build-noheaders}

if [ -f /usr/include/openssl/ssl.h ] && [ -f /usr/include/crypt.h ]; then
  clang -fsyntax-only -Werror -DCTLS_CHECK_HEADERS -I Sources/CTLS/include Sources/CTLS/tls.c
  echo "build-without-headers: CTLS's declarations agree with the installed OpenSSL and libxcrypt headers"
elif [ "${CI:-}" = "true" ]; then
  echo "build-without-headers: no OpenSSL or libxcrypt headers to check CTLS's declarations against (libssl-dev, libcrypt-dev)" >&2
  exit 1
else
  echo "build-without-headers: headers not installed, declarations not checked"
fi

[ "$(id -u)" -eq 0 ] || { echo "build-without-headers: needs root (a mount namespace)" >&2; exit 1; }

# In the namespace: an empty directory over each OpenSSL header directory, a header that
# stops the compiler over crypt.h, an empty file over each static library. (The shared
# libraries stay: swift-build itself loads libssl.so.3.)
inner=$(cat <<'INNER'
set -euo pipefail
empty=$(mktemp -d)
stop=$(mktemp)
printf '#error "crypt.h is hidden: the build must not need libcrypt-dev"\n' >"$stop"
blank=$(mktemp)
trap 'rm -rf "$empty" "$stop" "$blank"' EXIT
hidden=()
for path in /usr/include/openssl /usr/include/*/openssl; do
  [ -d "$path" ] && mount --bind "$empty" "$path" && hidden+=("$path")
done
[ -f /usr/include/crypt.h ] && mount --bind "$stop" /usr/include/crypt.h && hidden+=(/usr/include/crypt.h)
for path in /usr/lib/*/libcrypt.a /usr/lib/*/libssl.a /usr/lib/*/libcrypto.a; do
  [ -f "$path" ] && mount --bind "$blank" "$path" && hidden+=("$path")
done
echo "build-without-headers: hidden: ${hidden[*]:-nothing (not installed)}"
[ ! -e /usr/include/openssl/ssl.h ] || { echo "build-without-headers: ssl.h still visible" >&2; exit 1; }
start=$(date +%s)
swift build -c release --disable-local-rpath --product netpath --static-swift-stdlib --scratch-path "$1"
echo "build-without-headers: release build took $(( $(date +%s) - start )) s"
INNER
)
unshare --mount --propagation private bash -c "$inner" build-without-headers "$scratch"

binary=$scratch/release/netpath
needed=$(readelf -d "$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
echo "build-without-headers: $binary needs: $needed"
if grep -qE 'lib(ssl|crypto|crypt)\.' <<<"$needed"; then
  echo "build-without-headers: the binary links OpenSSL or libcrypt (they are loaded at run time)" >&2
  exit 1
fi
version=$("$binary" --version)
[ "$version" = "netpath $(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/netpath/Help.swift)" ] \
  || { echo "build-without-headers: unexpected --version: $version" >&2; exit 1; }
set +e
"$binary" status >/dev/null
status=$?
set -e
# 0 satisfied, 1 not: either is an answer; 2 or 3 is not.
[ "$status" -le 1 ] || { echo "build-without-headers: netpath status exited $status" >&2; exit 1; }
echo "build-without-headers: $version; status exits $status; $(stat -c %s "$binary") bytes"
