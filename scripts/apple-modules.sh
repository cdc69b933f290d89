# Sourced by check-apple.sh, check-readme.sh and build-docs.sh, from the package's root.
# package_swiftc ARG…: swiftc as SwiftPM compiles the package's modules (Swift 6, its upcoming features).
package_swiftc() { command swiftc -swift-version 6 -package-name NetPath -parse-as-library -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility "$@"; }
# build_apple_modules DIR: the stub Network, Combine and SwiftUI (library evolution, as Apple's
# frameworks), and NetPath, NetPathTestKit, NetPathPrometheus and NetPathUI against them, in
# DIR; compile against them with `-I DIR -I DIR/CNetlink` (which also holds CTLS's module). DIR/BundleModule.swift stands in for
# SwiftPM's Bundle.module. Warnings in the package's modules fail. With APPLE_MODULES=DIR (CI,
# whose sources do not change between its steps), they are built there once and copied.
build_apple_modules() {
  local out=$1 module
  if [ -n "${APPLE_MODULES:-}" ] && [ "$out" != "$APPLE_MODULES" ]; then
    [ -e "$APPLE_MODULES/.built" ] || { rm -rf "$APPLE_MODULES"; build_apple_modules "$APPLE_MODULES" || return 1; }
    mkdir -p "$out" && cp -a "$APPLE_MODULES/." "$out/" && rm -f "$out/.built"
    return
  fi
  mkdir -p "$out/CNetlink"
  for module in Network Combine SwiftUI; do
    package_swiftc -I "$out" -I "$out/CNetlink" -enable-library-evolution -emit-module -module-name "$module" \
      "Tests/AppleStubs/$module.swift" -emit-module-path "$out/$module.swiftmodule" 2>"$out/$module.log" \
      || { cat "$out/$module.log"; return 1; }
  done
  printf 'module CNetlink {\n  header "%s/Sources/CNetlink/include/CNetlink.h"\n  export *\n}\n' "$PWD" >"$out/CNetlink/module.modulemap"
  printf 'module CTLS {\n  header "%s/Sources/CTLS/include/CTLS.h"\n  export *\n}\n' "$PWD" >>"$out/CNetlink/module.modulemap"
  printf 'import Foundation\nextension Foundation.Bundle { static let module: Bundle = .main }\n' >"$out/BundleModule.swift"
  local sources directory
  # NetPath is three targets (Package.swift): NetPath/Core (module NetPathCore) and NetPath/System first, NetPath the rest.
  for directory in NetPath/Core NetPath/System NetPath NetPathTestKit NetPathPrometheus NetPathUI; do
    module=${directory/\//}
    echo "== $module against the stubs"
    mapfile -t sources < <(find "Sources/$directory" -name '*.swift' -not -path "Sources/$directory/Core/*" -not -path "Sources/$directory/System/*" | sort)
    [ "$module" = NetPathUI ] && sources+=("$out/BundleModule.swift")
    package_swiftc -I "$out" -I "$out/CNetlink" -warnings-as-errors -emit-module -module-name "$module" "${sources[@]}" \
      -emit-module-path "$out/$module.swiftmodule" || return 1
  done
  if [ "$out" = "${APPLE_MODULES:-}" ]; then touch "$out/.built"; fi
}
