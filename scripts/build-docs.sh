#!/usr/bin/env bash
# Usage: scripts/build-docs.sh [OUTPUT_DIR] (default .build-docs/site, to serve at a host's root):
# the DocC catalogs of NetPath, NetPathPrometheus and NetPathUI with the toolchain's `docc`,
# warnings as errors, merged into one site. NetPath's symbols are built in .build-docs/build (never
# .build, which other builds use meanwhile), or in DOCS_SCRATCH with the test build's flags (CI,
# after the tests built everything there: nothing is compiled again); NetPathUI's against the
# Apple stubs. Every ```swift
# listing but a `// Package.swift` excerpt is type-checked against the stub-compiled modules.
# Symbol links cannot cross archives: NetPathUI links NetPath's pages by path (check-docs-render.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
site=${1:-.build-docs/site}
work=.build-docs
graphs=$work/symbol-graphs stubs=$work/stubs archives=$work/archives samples=$work/samples
docc=$(command -v docc || echo "$(dirname "$(readlink -f "$(command -v swift)")")/docc")
[ -x "$docc" ] || { echo "build-docs: no docc beside swift or in PATH" >&2; exit 1; }
step() { echo "== $1 (after $SECONDS s)"; }

step "NetPath and NetPathPrometheus: swift build, then their symbol graphs"
rm -rf "$graphs" "$stubs" "$samples" "$archives" && mkdir -p "$graphs"/{NetPath,NetPathPrometheus,NetPathUI} "$stubs" "$samples" "$archives"
scratch=${DOCS_SCRATCH:-$work/build}
flags=()
[ -n "${DOCS_SCRATCH:-}" ] && flags=(-Xswiftc -warnings-as-errors -Xswiftc -require-explicit-sendable)
swift build --scratch-path "$scratch" "${flags[@]}" --target NetPathPrometheus >"$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
grep -vE '^\[[0-9]+/[0-9]+\] |^Building for|^Build of target|^Compiling|^Write ' "$work/build.log" || true
bin=$(swift build --scratch-path "$scratch" --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
for module in NetPath NetPathPrometheus; do
  # NetPath re-exports its core: the core's values are documented as NetPath's.
  swift-symbolgraph-extract -module-name "$module" -target "$triple" -I "$bin/Modules" -I "$bin/CNetlink.build" -I "$bin/CTLS.build" \
    -minimum-access-level public -emit-extension-block-symbols -experimental-allowed-reexported-modules=NetPathCore \
    -output-dir "$graphs/$module"
done

step "NetPathUI: compiled against the Apple stubs, then its symbol graph"
source scripts/apple-modules.sh
build_apple_modules "$stubs" | sed 's/^/   /'
swift-symbolgraph-extract -module-name NetPathUI -target "$triple" -I "$stubs" -I "$stubs/CNetlink" \
  -minimum-access-level public -emit-extension-block-symbols -skip-synthesized-members -output-dir "$graphs/NetPathUI"

step "the catalogs' Swift listings, type-checked against those modules"
python3 - "$samples" Sources/*/*.docc <<'PY'
import pathlib, re, sys
count = 0
for article in sorted(p for catalog in sys.argv[2:] for p in pathlib.Path(catalog).glob("*.md")):
    text = article.read_text()
    for listing in re.finditer(r"^[ \t]*```swift[ \t]*\n((?:.*\n)*?)[ \t]*```[ \t]*$", text, re.M):  # lines up to the next ```
        start = text.count("\n", 0, listing.start()) + 1
        if listing[1] and not listing[1].lstrip(" \t").startswith("// Package.swift"):
            swift = f'#sourceLocation(file: "{article}", line: {start + 1})\n' + listing[1]
            (pathlib.Path(sys.argv[1]) / f"{article.stem}-line{start}.swift").write_text(swift)
            count += 1
print(f"   {count} listings")
PY
check_sample() {  # as in an app's target: Swift 6, none of the package's upcoming features
  local mode=()
  grep -q '^@main' "$1" && mode=(-parse-as-library)
  swiftc -swift-version 6 "${mode[@]}" -warnings-as-errors -typecheck -I "$stubs" -I "$stubs/CNetlink" "$1" 2>"$1.log" \
    || { cat "$1.log"; echo "build-docs: a code listing does not type-check (above)" >&2; return 1; }
}
export -f check_sample
export stubs
find "$samples" -name '*.swift' -print0 | sort -z | xargs -0 -n 1 -P 2 bash -c 'check_sample "$0"'

for name in NetPath NetPathPrometheus NetPathUI; do
  step "docc convert $name"
  "$docc" convert "Sources/$name/$name.docc" --additional-symbol-graph-dir "$graphs/$name" \
    --output-dir "$archives/$name.doccarchive" --fallback-display-name "$name" \
    --fallback-bundle-identifier "org.netpath.$name" --fallback-default-module-kind "Swift Package" \
    --transform-for-static-hosting --warnings-as-errors >"$work/docc.log" 2>&1 || status=$?
  grep -v '^[[:space:]]*$' "$work/docc.log" || true
  # Any diagnostic fails, also one docc does not count as a warning.
  if [ "${status:-0}" -ne 0 ] || grep -qiE '^(warning|error)\b' "$work/docc.log"; then
    echo "build-docs: docc reported problems in $name.docc (above)" >&2; exit 1
  fi
done

step "docc merge into $site"
rm -rf "$site"
"$docc" merge "$archives"/{NetPath,NetPathPrometheus,NetPathUI}.doccarchive --output-path "$site" \
  --synthesized-landing-page-name NetPath --synthesized-landing-page-kind Package
# DocC's own page for / is "page not found": send the root to the landing page.
cat >"$site/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>NetPath Documentation</title>
<meta http-equiv="refresh" content="0; url=documentation/"></head>
<body><p><a href="documentation/">NetPath Documentation</a></p></body></html>
HTML
echo "Documentation built in $SECONDS s: $site ($(($(find "$site/data/documentation" -name '*.json' | wc -l) + 1)) pages)."
