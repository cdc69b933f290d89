# Sourced by check-apple.sh, check-readme.sh and build-docs.sh, from the package's root.
# build_apple_modules DIR: the stub Network, Combine and SwiftUI (library evolution, as Apple's
# frameworks), and NetPath, NetPathTestKit, NetPathPrometheus and NetPathUI against them, in
# DIR; compile against them with `-I DIR -I DIR/CNetlink`. DIR/BundleModule.swift stands in for
# SwiftPM's Bundle.module. Warnings in the package's modules fail.
build_apple_modules() {
  local out=$1 module
  local flags=(-swift-version 6 -package-name NetPath -parse-as-library -I "$out" -I "$out/CNetlink"
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility)
  for module in Network Combine SwiftUI; do
    command swiftc "${flags[@]}" -enable-library-evolution -emit-module -module-name "$module" \
      "scripts/apple-stubs/$module.swift" -emit-module-path "$out/$module.swiftmodule" 2>"$out/$module.log" \
      || { cat "$out/$module.log"; return 1; }
  done
  mkdir -p "$out/CNetlink"
  printf 'module CNetlink {\n  header "%s/Sources/CNetlink/include/CNetlink.h"\n  export *\n}\n' "$PWD" >"$out/CNetlink/module.modulemap"
  printf 'import Foundation\nextension Foundation.Bundle { static let module: Bundle = .main }\n' >"$out/BundleModule.swift"
  local sources directory
  # NetPath is three targets: the core and the system first (Package.swift).
  for module in NetPathCore NetPathSystem NetPath NetPathTestKit NetPathPrometheus NetPathUI; do
    echo "== $module against the stubs"
    directory=Sources/$module
    [ "$module" = NetPathCore ] && directory=Sources/NetPath/Core
    [ "$module" = NetPathSystem ] && directory=Sources/NetPath/System
    mapfile -t sources < <(find "$directory" -name '*.swift' -not -path '*/NetPath/Core/*' -not -path '*/NetPath/System/*' | sort)
    [ "$module" = NetPathCore ] || [ "$module" = NetPathSystem ] && mapfile -t sources < <(find "$directory" -name '*.swift' | sort)
    [ "$module" = NetPathUI ] && sources+=("$out/BundleModule.swift")
    command swiftc "${flags[@]}" -warnings-as-errors -emit-module -module-name "$module" "${sources[@]}" \
      -emit-module-path "$out/$module.swiftmodule" || return 1
  done
}
