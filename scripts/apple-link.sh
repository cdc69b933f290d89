#!/usr/bin/env bash
# Links the CLI and a SwiftUI app as arm64 iOS executables with ../shared/apple-sdk/link.sh,
# against Apple's iOS 17.4 SDK with only Xcode 26's Network declarations added (the iOS 26 API
# NetPath reads under `#if compiler(>=6.2)` and `if #available(iOS 26.0, …)`; this toolchain is
# Swift 6.3, so that code is compiled). Every symbol must exist in the 17.4 frameworks, except
# the iOS 26 ones: the compiler imports them weakly (their availability is above the deployment
# target), and only iOS 26's Network.tbd has them. Those, by name and no other, may stay
# undefined. (The backport SDK cannot be linked against: its `@preconcurrency View` changes the
# mangling of SwiftUI symbols, which then are not in the 17.4 SwiftUI.tbd.)
#
#   bash scripts/apple-link.sh       after ../shared/apple-sdk/setup.sh and typecheck.sh
set -euo pipefail
cd "$(dirname "$0")/.."
A=${APPLESDK:-/tmp/applesdk}
shared=${APPLE_SDK_SCRIPTS:-../shared/apple-sdk}
plain=$A/iPhoneOS17.4.sdk
backport=$A/iPhoneOS17.4-backport.sdk
sdk=$A/iPhoneOS17.4-network26.sdk
if [ ! -d "$plain" ] || [ ! -d "$backport" ]; then
  echo "apple-link: no SDK at $A (run $shared/setup.sh as its README says)" >&2
  exit 77
fi
interface=System/Library/Frameworks/Network.framework/Modules/Network.swiftmodule/arm64-apple-ios.swiftinterface
rm -rf "$sdk"
cp -as "$plain" "$sdk"
rm "$sdk/$interface"
cp "$backport/$interface" "$sdk/$interface"

# The linker, with the weak iOS 26 Network symbols the objects import allowed undefined.
mkdir -p "$A/out"
linker=$A/out/ld64-ios26-weak
cat >"$linker" <<'LD'
#!/usr/bin/env bash
set -euo pipefail
allowed=()
for argument in "$@"; do
  [[ $argument == *.o ]] || continue
  while read -r symbol; do
    allowed+=(-U "$symbol")
  done < <(/opt/swift/usr/bin/llvm-nm -u "$argument" | awk '{print $NF}' \
             | grep -E '^_\$s7Network6NWPathV(11LinkQuality|11linkQuality|18isUltraConstrained)' || true)
done
[ ${#allowed[@]} -eq 0 ] || echo "apple-link: allowed undefined (weak, iOS 26): $(( ${#allowed[@]} / 2 )) symbols" >&2
exec /usr/lib/llvm-19/bin/ld64.lld "$@" "${allowed[@]}"
LD
chmod +x "$linker"
SDK=$sdk LD=$linker bash "$shared/link.sh"
# What was allowed must be a weak import (an app on iOS 17 must still launch).
for executable in "$A/out/link/netpath" "$A/out/link/NetPathDemo"; do
  strong=$(/opt/swift/usr/bin/llvm-nm -m "$executable" | grep -E 'NWPathV(11LinkQuality|11linkQuality|18isUltraConstrained)' \
             | grep -v 'weak external' || true)
  if [ -n "$strong" ]; then
    echo "apple-link: iOS 26 symbols imported strongly by $(basename "$executable"):" >&2
    echo "$strong" >&2
    exit 1
  fi
done
echo "apple-link: both executables linked; the iOS 26 symbols are weak imports."
