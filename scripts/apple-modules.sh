# Sourced by check-apple.sh and check-readme.sh (run from the package's root).
#
# build_apple_modules DIR builds, into DIR, the stub Network, Combine and SwiftUI modules
# (scripts/apple-stubs, with library evolution as Apple's frameworks have it, so
# `@unknown default` matters) and NetPath, NetPathTestKit and NetPathUI compiled against them,
# as they compile on Apple platforms; CNetlink's module map goes in DIR/CNetlink. Compile
# against them with `-I DIR -I DIR/CNetlink`. DIR/BundleModule.swift stands in for the
# Bundle.module that SwiftPM generates for NetPathUI's resources. Fails on any warning.

build_apple_modules() {
  local out=$1 module
  local flags=(-swift-version 6 -package-name NetPath -parse-as-library -I "$out"
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility)

  for module in Network Combine SwiftUI; do
    command swiftc "${flags[@]}" -enable-library-evolution -emit-module -module-name "$module" \
      "scripts/apple-stubs/$module.swift" -emit-module-path "$out/$module.swiftmodule" 2>"$out/$module.log" \
      || { cat "$out/$module.log"; return 1; }
  done

  # The C shim, as SwiftPM would expose it.
  mkdir -p "$out/CNetlink"
  cat >"$out/CNetlink/module.modulemap" <<MAP
module CNetlink {
  header "$PWD/Sources/CNetlink/include/CNetlink.h"
  export *
}
MAP

  cat >"$out/BundleModule.swift" <<'SWIFT'
import Foundation
extension Foundation.Bundle { static let module: Bundle = .main }
SWIFT

  local module_sources
  for module in Core System; do
    echo "== NetPath$module"
    mapfile -t module_sources < <(find "Sources/NetPath/$module" -name '*.swift' | sort)
    command swiftc "${flags[@]}" -warnings-as-errors -emit-module -module-name "NetPath$module" -I "$out/CNetlink" \
      "${module_sources[@]}" -emit-module-path "$out/NetPath$module.swiftmodule" || return 1
  done

  echo "== NetPath (Network backend, Combine publisher) against the stubs"
  local netpath_sources
  mapfile -t netpath_sources < <(find Sources/NetPath -name '*.swift' -not -path '*/Core/*' -not -path '*/System/*' | sort)
  command swiftc "${flags[@]}" -warnings-as-errors -emit-module -module-name NetPath -I "$out/CNetlink" \
    "${netpath_sources[@]}" -emit-module-path "$out/NetPath.swiftmodule" || return 1

  echo "== NetPathTestKit"
  command swiftc "${flags[@]}" -warnings-as-errors -emit-module -module-name NetPathTestKit -I "$out/CNetlink" \
    Sources/NetPathTestKit/*.swift -emit-module-path "$out/NetPathTestKit.swiftmodule" || return 1

  echo "== NetPathPrometheus"
  command swiftc "${flags[@]}" -warnings-as-errors -emit-module -module-name NetPathPrometheus -I "$out/CNetlink" \
    Sources/NetPathPrometheus/*.swift -emit-module-path "$out/NetPathPrometheus.swiftmodule" || return 1

  echo "== NetPathUI against the stubs"
  command swiftc "${flags[@]}" -warnings-as-errors -emit-module -module-name NetPathUI -I "$out/CNetlink" \
    Sources/NetPathUI/*.swift "$out/BundleModule.swift" -emit-module-path "$out/NetPathUI.swiftmodule" || return 1
}
