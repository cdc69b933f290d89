#!/usr/bin/env bash
# Builds the documentation site: the DocC catalogs of NetPath (Sources/NetPath/NetPath.docc),
# NetPathPrometheus (Sources/NetPathPrometheus/NetPathPrometheus.docc) and NetPathUI
# (Sources/NetPathUI/NetPathUI.docc), with the toolchain's own `docc`, no
# plugin. Usage: scripts/build-docs.sh [OUTPUT_DIR]   (default: .build-docs/site)
#
# 1. NetPath's and NetPathPrometheus' symbol graphs: `swift build --target NetPathPrometheus`
#    (which builds NetPath) in a scratch path of its own
#    (.build-docs/build; never .build, which other builds use at the same time), then
#    `swift-symbolgraph-extract` on the module it built, as `swift package dump-symbol-graph`
#    does. (Extracting after the build, rather than `-Xswiftc -emit-symbol-graph`, gives a
#    fresh graph also when the incremental build has nothing to compile.) So NetPath is
#    documented as it compiles on Linux: its Apple-only members (the Combine
#    `publisher(queue:)`/`PathPublisher`, the `NWPath` conversions) are not in the graph.
# 2. NetPathUI's symbol graph: NetPathUI needs SwiftUI, which Linux does not have, so it is
#    compiled as scripts/check-apple.sh compiles it, by build_apple_modules
#    (scripts/apple-modules.sh: the API stubs of scripts/apple-stubs, and NetPath,
#    NetPathTestKit and NetPathUI against them), and its graph is extracted from that
#    module. Members that views inherit from the stub `View` are left out (they would list
#    the stubs' subset of SwiftUI's modifiers); `offlineIndicator` is documented under the
#    SwiftUI `View` extension.
# 3. Every ```swift code listing in the two catalogs is type-checked, each as a file of its
#    own, against those stub-compiled modules (NetPath, NetPathTestKit, NetPathUI, SwiftUI,
#    Combine), so a sample that no longer matches the API fails here, as a stale symbol
#    link does in step 4. Listings that begin with `// Package.swift` are manifest
#    excerpts and are not compiled.
# 4. `docc convert` for each catalog, with --warnings-as-errors and
#    --transform-for-static-hosting, into two archives (.build-docs/archives). A symbol
#    link cannot cross into the other archive (this docc resolves no ``NetPath/…`` link
#    from NetPathUI, even with `--dependency`), so NetPathUI's articles link to NetPath's
#    pages by site path, [`NetworkMonitor`](/documentation/netpath/networkmonitor), and
#    scripts/check-docs-render.sh checks that every such link reaches a page.
# 5. `docc merge` combines the two archives into one static site with a landing page at
#    /documentation/ listing both modules (one site, one navigator, so the links between the
#    two work).
#    No hosting base path: serve OUTPUT_DIR at the root of a host (scripts/check-docs-render.sh
#    does, on loopback); the root's index.html redirects to /documentation/.
#
# Fails on any compiler error, any sample that does not type-check, and any docc warning.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"

site=${1:-.build-docs/site}
work=.build-docs
scratch=$work/build
graphs=$work/symbol-graphs
stubs=$work/stubs
archives=$work/archives
mkdir -p "$work"

docc=$(command -v docc || true)
if [ -z "$docc" ]; then
  docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
fi
[ -x "$docc" ] || { echo "build-docs: no docc beside swift or in PATH" >&2; exit 1; }

step_start=$SECONDS
step() {
  echo "== $1"
  step_start=$SECONDS
}
took() { echo "   ($((SECONDS - step_start)) s)"; }

step "NetPath and NetPathPrometheus: swift build --target NetPathPrometheus, then their symbol graphs"
swift build --scratch-path "$scratch" --target NetPathPrometheus >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
grep -vE '^\[[0-9]+/[0-9]+\] |^Building for|^Build of target|^Compiling|^Write ' "$work/build.log" || true
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
modules=$bin/Modules
[ -d "$modules" ] || modules=$bin
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
rm -rf "$graphs" && mkdir -p "$graphs/NetPath" "$graphs/NetPathPrometheus" "$graphs/NetPathUI"
for module in NetPath NetPathPrometheus; do
  swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$modules" -I "$bin/CNetlink.build" \
    -minimum-access-level public -emit-extension-block-symbols -experimental-allowed-reexported-modules=NetPathCore \
    -output-dir "$graphs/$module"
done
took

step "NetPathUI: compiled against the Apple API stubs, then its symbol graph"
rm -rf "$stubs" && mkdir -p "$stubs"
# shellcheck source=apple-modules.sh
source scripts/apple-modules.sh
build_apple_modules "$stubs" | sed 's/^/   /'
swift-symbolgraph-extract -module-name NetPathUI -target "$triple" -I "$stubs" -I "$stubs/CNetlink" \
  -minimum-access-level public -emit-extension-block-symbols -skip-synthesized-members -output-dir "$graphs/NetPathUI"
took

step "the catalogs' Swift code listings, type-checked against those modules"
samples=$work/samples
rm -rf "$samples" && mkdir -p "$samples"
python3 - "$samples" Sources/NetPath/NetPath.docc Sources/NetPathPrometheus/NetPathPrometheus.docc Sources/NetPathUI/NetPathUI.docc <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
count = 0
for catalog in sys.argv[2:]:
    for article in sorted(pathlib.Path(catalog).glob("*.md")):
        lines = article.read_text().split("\n")
        block, start = None, 0
        for number, line in enumerate(lines, 1):
            if block is None and re.fullmatch(r"\s*```swift\s*", line):
                block, start = [], number
            elif block is not None and re.fullmatch(r"\s*```\s*", line):
                if block and not block[0].strip().startswith("// Package.swift"):
                    name = f"{article.stem}-line{start}.swift"
                    # A #sourceLocation points diagnostics at the article's own lines.
                    text = f'#sourceLocation(file: "{article}", line: {start + 1})\n' + "\n".join(block) + "\n"
                    (out / name).write_text(text)
                    count += 1
                block = None
            elif block is not None:
                block.append(line)
print(f"   {count} listings")
PY
check_sample() {
  local file=$1 mode=()
  grep -q '^@main' "$file" && mode=(-parse-as-library)
  # As in an app's target: Swift 6, none of the package's own upcoming features.
  command swiftc -swift-version 6 "${mode[@]}" -warnings-as-errors -typecheck -I "$stubs" -I "$stubs/CNetlink" "$file" 2>"$file.log" \
    || { cat "$file.log"; echo "build-docs: a code listing does not type-check (above)" >&2; return 1; }
}
export -f check_sample
export stubs
find "$samples" -name '*.swift' -print0 | sort -z | xargs -0 -n 1 -P 2 bash -c 'check_sample "$0"'
took

convert() {
  local catalog=$1 name=$2 log
  shift 2
  local status=0
  log=$(mktemp)
  "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs/$name" \
    --output-dir "$archives/$name.doccarchive" --fallback-display-name "$name" \
    --fallback-bundle-identifier "org.netpath.$name" --fallback-default-module-kind "Swift Package" \
    --transform-for-static-hosting --warnings-as-errors "$@" >"$log" 2>&1 || status=$?
  grep -v '^[[:space:]]*$' "$log" || true
  # Any diagnostic fails the build, also one docc would not count as a warning.
  if [ "$status" -ne 0 ] || grep -qiE '^(warning|error)\b' "$log"; then
    rm -f "$log"
    echo "build-docs: docc reported problems in $catalog (above)" >&2
    return 1
  fi
  rm -f "$log"
}

step "docc convert NetPath"
rm -rf "$archives" && mkdir -p "$archives"
convert Sources/NetPath/NetPath.docc NetPath
took

step "docc convert NetPathPrometheus"
convert Sources/NetPathPrometheus/NetPathPrometheus.docc NetPathPrometheus
took

step "docc convert NetPathUI"
convert Sources/NetPathUI/NetPathUI.docc NetPathUI
took

step "docc merge into $site"
rm -rf "$site"
"$docc" merge "$archives/NetPath.doccarchive" "$archives/NetPathPrometheus.doccarchive" "$archives/NetPathUI.doccarchive" --output-path "$site" \
  --synthesized-landing-page-name NetPath --synthesized-landing-page-kind Package
# The app's own page for / is "page not found": send visitors of the root to the landing page.
cat >"$site/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>NetPath Documentation</title>
<meta http-equiv="refresh" content="0; url=documentation/"></head>
<body><p><a href="documentation/">NetPath Documentation</a></p></body></html>
HTML
pages=$(find "$site/data/documentation" -name '*.json' | wc -l)
took
echo "Documentation built: $site ($((pages + 1)) pages; serve it at the root of a host)."
