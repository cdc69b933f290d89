#!/usr/bin/env bash
# Links the CLI and a SwiftUI app as arm64 iOS executables (../shared/apple-sdk/link.sh) against
# the iOS 17.4 SDK plus Xcode 26's Network interface, for the iOS 26 API NetPath compiles in
# under `#if compiler(>=6.2)`. Only those iOS 26 symbols may stay undefined, and only as weak
# imports (an app on iOS 17 must launch). Run after ../shared/apple-sdk/setup.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
A=${APPLESDK:-/tmp/applesdk}
shared=${APPLE_SDK_SCRIPTS:-../shared/apple-sdk}
sdk=$A/iPhoneOS17.4-network26.sdk
[ -d "$A/iPhoneOS17.4.sdk" ] && [ -d "$A/iPhoneOS17.4-backport.sdk" ] \
  || { echo "apple-link: no SDK at $A (run $shared/setup.sh as its README says)" >&2; exit 77; }
interface=System/Library/Frameworks/Network.framework/Modules/Network.swiftmodule/arm64-apple-ios.swiftinterface
rm -rf "$sdk"
cp -as "$A/iPhoneOS17.4.sdk" "$sdk"
cp --remove-destination "$A/iPhoneOS17.4-backport.sdk/$interface" "$sdk/$interface"  # the link goes, not its target
ios26='NWPathV(11LinkQuality|11linkQuality|18isUltraConstrained)'
mkdir -p "$A/out"
cat >"$A/out/ld64-ios26-weak" <<LD
#!/usr/bin/env bash
allowed=()
for argument in "\$@"; do
  [[ \$argument == *.o ]] || continue
  for symbol in \$(/opt/swift/usr/bin/llvm-nm -u "\$argument" | awk '{print \$NF}' | grep -E '^_\\\$s7Network6$ios26'); do
    allowed+=(-U "\$symbol")
  done
done
echo "apple-link: allowed undefined (weak, iOS 26): \$(( \${#allowed[@]} / 2 )) symbols" >&2
exec /usr/lib/llvm-19/bin/ld64.lld "\$@" "\${allowed[@]}"
LD
chmod +x "$A/out/ld64-ios26-weak"
SDK=$sdk LD=$A/out/ld64-ios26-weak bash "$shared/link.sh"
for executable in "$A/out/link/netpath" "$A/out/link/NetPathDemo"; do
  if /opt/swift/usr/bin/llvm-nm -m "$executable" | grep -E "$ios26" | grep -v 'weak external'; then
    echo "apple-link: iOS 26 symbols imported strongly by $(basename "$executable") (above)" >&2; exit 1
  fi
done
echo "apple-link: both executables linked; the iOS 26 symbols are weak imports."
