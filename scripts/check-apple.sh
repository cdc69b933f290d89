#!/usr/bin/env bash
# Type-checks the Apple-only code on Linux against stub Network, Combine, SwiftUI and Darwin
# modules (Tests/AppleStubs), so `#if canImport(…)` takes the Apple branches. Warnings fail.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# swapped FROM TO FILE…: copies of FILEs into TO with the sed expressions in FROM applied.
swapped() { local expressions=$1 to=$2; shift 2; mkdir -p "$to"; for f in "$@"; do sed -E "$expressions" "$f" >"$to/$(basename "$f")"; done; }

# The C files compile where __linux__ is not defined (their Linux parts are guarded).
clang -fsyntax-only -Werror -U__linux__ -I Sources/CNetlink/include -I Sources/CStartArguments/include -I Tests/CTestSupport/include \
  Sources/CNetlink/shim.c Sources/CStartArguments/arguments.c Tests/CTestSupport/shim.c

source scripts/apple-modules.sh
build_apple_modules "$out"

# NetPathUI for each platform of Package.swift, with that platform's `unavailable` marks made
# absolute, so `Material.bar` (not on tvOS and watchOS) fails outside `#if os(…)`.
for platform in iOS macOS tvOS watchOS visionOS; do
  echo "== NetPathUI as compiled for $platform"
  variant=$out/$platform
  swapped "s/@available\($platform, unavailable\)/@available(*, unavailable)/" "$variant" Tests/AppleStubs/SwiftUI.swift
  package_swiftc -enable-library-evolution -emit-module -module-name SwiftUI -I "$out" "$variant/SwiftUI.swift" \
    -emit-module-path "$variant/SwiftUI.swiftmodule" 2>"$variant/log" || { cat "$variant/log"; exit 1; }
  swapped "s/os\($platform\)/true/g; s/os\((iOS|macOS|tvOS|watchOS|visionOS|Linux|Android|Windows)\)/false/g" \
    "$variant/ui" Sources/NetPathUI/*.swift
  package_swiftc -warnings-as-errors -typecheck -I "$variant" -I "$out" -I "$out/CNetlink" "$variant"/ui/*.swift "$out/BundleModule.swift"
done

# The tool and the POSIX part of NetPathSystem it uses (syscalls, errno and signal names, the poll selector, the lock), with
# their Darwin branches taken, against a Darwin with only Apple's libc: a Glibc-only call fails here.
echo "== the netpath tool and the syscall layer's POSIX part as compiled for macOS"
darwin='s/canImport\((Glibc|Musl|CNetlink)\)/false/g; s/os\((Linux|Android)\)/false/g; s/canImport\(Darwin\)|os\(macOS\)/true/g'
package_swiftc -emit-module -module-name Darwin Tests/AppleStubs/Darwin.swift -emit-module-path "$out/darwin/Darwin.swiftmodule"
swapped "$darwin" "$out/darwin/cli" Sources/netpath/*.swift
package_swiftc -warnings-as-errors -typecheck -module-name netpath -I "$out/darwin" -I "$out" -I "$out/CNetlink" "$out"/darwin/cli/*.swift
swapped "$darwin" "$out/darwin/system" Sources/NetPath/System/{Core,Syscalls,Errno+System,Signal,EventLoop,Lock}.swift
package_swiftc -warnings-as-errors -typecheck -module-name NetPathSystem -I "$out/darwin" -I "$out" "$out"/darwin/system/*.swift
echo "Apple code type-checks."
