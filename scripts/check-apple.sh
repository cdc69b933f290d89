#!/usr/bin/env bash
# Type-checks every Apple-only file (the Network backend, Combine, NetPathUI) on Linux,
# against stub modules named Network, Combine and SwiftUI that declare Apple's documented
# signatures (scripts/apple-stubs). With the stubs on the import path, `#if canImport(Network)`
# and friends are true, so the Apple code is compiled exactly as written. Fails on any error
# or warning. The README's Apple examples are checked against the same stubs by
# check-readme.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

swiftc() { command swiftc -swift-version 6 -package-name NetPath -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility "$@"; }

# The C files must compile where __linux__ is not defined (their Linux parts are guarded).
for file in Sources/CNetlink/shim.c Tests/CTestSupport/shim.c; do
  clang -fsyntax-only -Werror -U__linux__ -I Sources/CNetlink/include -I Tests/CTestSupport/include "$file" \
    || { echo "check-apple: $file does not compile without __linux__" >&2; exit 1; }
done

# The stubs, and NetPath, NetPathTestKit and NetPathUI against them.
source scripts/apple-modules.sh
build_apple_modules "$out"

# Each platform Package.swift declares: the stubs with that platform's `unavailable`
# marks made absolute, and NetPathUI with `os(…)` true for that platform only, so a use of
# a symbol that does not exist there (`Material.bar` on tvOS and watchOS) fails here.
for platform in iOS macOS tvOS watchOS visionOS; do
  echo "== NetPathUI as compiled for $platform"
  variant="$out/$platform"
  mkdir -p "$variant/ui"
  sed -E "s/@available\($platform, unavailable\)/@available(*, unavailable)/" scripts/apple-stubs/SwiftUI.swift >"$variant/SwiftUI.swift"
  swiftc -parse-as-library -enable-library-evolution -emit-module -module-name SwiftUI -I "$out" \
    "$variant/SwiftUI.swift" -emit-module-path "$variant/SwiftUI.swiftmodule" 2>"$variant/stub.log" \
    || { cat "$variant/stub.log"; exit 1; }
  for file in Sources/NetPathUI/*.swift; do
    sed -E -e "s/os\($platform\)/true/g" -e "s/os\((iOS|macOS|tvOS|watchOS|visionOS|Linux|Android|Windows)\)/false/g" \
      "$file" >"$variant/ui/$(basename "$file")"
  done
  swiftc -parse-as-library -warnings-as-errors -typecheck -I "$variant" -I "$out" -I "$out/CNetlink" \
    "$variant"/ui/*.swift "$out/BundleModule.swift"
done

# The tool as it compiles on macOS: its sources with the Darwin branches taken, against a
# stub Darwin module that declares only what Apple's libc has, so a Glibc-only call
# (sigtimedwait, pthread_condattr_setclock, Glibc.write, …) fails here.
echo "== the netpath tool as compiled for macOS"
mkdir -p "$out/darwin/cli"
swiftc -parse-as-library -emit-module -module-name Darwin scripts/apple-stubs/Darwin.swift \
  -emit-module-path "$out/darwin/Darwin.swiftmodule"
for file in Sources/netpath/*.swift; do
  sed -E -e 's/canImport\((Glibc|Musl)\)/false/g' -e 's/os\((Linux|Android)\)/false/g' \
    -e 's/canImport\(Darwin\)/true/g' -e 's/os\(macOS\)/true/g' "$file" >"$out/darwin/cli/$(basename "$file")"
done
swiftc -warnings-as-errors -typecheck -module-name netpath -I "$out/darwin" -I "$out" -I "$out/CNetlink" "$out"/darwin/cli/*.swift

# NetPathSystem (the syscall layer's POSIX part, the event loop with its poll selector, the
# lock, threads), which the tool uses on macOS too, as it compiles there: with Darwin (the
# stub) in place of Glibc and without the shim's Linux part.
echo "== NetPathSystem as compiled for macOS"
mkdir -p "$out/darwin/system"
for file in Sources/NetPath/System/{Core,Syscalls,EventLoop,Lock}.swift; do
  sed -E -e 's/canImport\((Glibc|Musl|CNetlink)\)/false/g' -e 's/os\((Linux|Android)\)/false/g' \
    -e 's/canImport\(Darwin\)/true/g' "$file" >"$out/darwin/system/$(basename "$file")"
done
swiftc -parse-as-library -warnings-as-errors -typecheck -module-name NetPathSystem -I "$out/darwin" -I "$out" "$out"/darwin/system/*.swift

echo "Apple code type-checks."
