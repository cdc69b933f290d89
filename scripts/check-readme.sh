#!/usr/bin/env bash
# Type-checks the README's library examples (scripts/readme-examples) against the NetPath
# module of the last debug build (`swift build` or `swift test` first).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf 'module CNetlink {\n  header "%s/Sources/CNetlink/include/CNetlink.h"\n  export *\n}\n' "$PWD" >"$out/module.modulemap"
modules=$(swift build --show-bin-path)/Modules
swiftc -swift-version 6 -warnings-as-errors -typecheck -I "$modules" -I "$out" scripts/readme-examples/*.swift
echo "README examples type-check."
