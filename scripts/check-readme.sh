#!/usr/bin/env bash
# Type-checks every ```swift block of README.md as a reader would use it (Swift 6, none of the
# package's flags) against NetPath and NetPathTestKit as the last `swift build` made them. A
# block with `import` lines is a whole file (a main.swift if it has top-level statements); one
# without gets `import NetPath` and `import NetPathTestKit`. <!-- check: WORD, … --> before it:
#   apple      against the Apple stubs (apple-modules.sh); a fragment also gets NetPathUI, SwiftUI, Combine
#   continues  goes on with the program of the ```swift block before it
#   view-body  the body of a SwiftUI view with a `networkMonitor` (FeedList and SettingsForm exist)
#   method     the body of a method of a main-actor class with a `var canDownload`
#   manifest   a Package.swift, loaded and resolved with this checkout at ../NetPath and ../netpath
# Diagnostics name README.md's lines; warnings fail, except unused values ([#no-usage]).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The blocks, as $out/src/N.swift, and "N<TAB>first line<TAB>words" for each in $out/index.
mkdir -p "$out/src" "$out/units"
awk -v src="$out/src" -v index_file="$out/index" '
  function fail(message) { print "README.md:" NR ": " message > "/dev/stderr"; failed = 1 }
  inblock { if ($0 ~ /^```[[:space:]]*$/) { inblock = 0; close(file) } else if (swift) print > file; next }
  /^<!-- check: .* -->[[:space:]]*$/ {
    if (marker != "") fail("a second check comment; the first is not right before a ```swift block")
    marker = $0; sub(/^<!-- check: /, "", marker); sub(/ -->[[:space:]]*$/, "", marker); next
  }
  /^<!-- *check/ { fail("not a check comment: write <!-- check: WORD, WORD -->"); next }
  /^```/ {
    info = tolower($0); sub(/^```/, "", info); gsub(/[[:space:]]/, "", info)
    inblock = 1; swift = (info == "swift")
    if (swift) {
      n++; file = src "/" n ".swift"; printf "" > file
      printf "%d\t%d\t%s\n", n, NR + 1, marker > index_file
    } else if (marker != "") fail("a check comment before a block that is not ```swift")
    marker = ""; next
  }
  /[^[:space:]]/ { if (marker != "") fail("a check comment must be right before a ```swift block"); marker = "" }
  END {
    if (inblock) fail("a code block is not closed")
    if (n == 0) fail("no ```swift block found")
    exit failed
  }
' README.md

# Each block made into a unit: "KIND PLATFORM FILE LINES", KIND program, library or manifest.
source_location() { printf '#sourceLocation(file: "README.md", line: %d)\n' "$1"; }
fragment_imports() {
  printf 'import NetPath\nimport NetPathTestKit\n'
  [ "$1" = apple ] && printf 'import Combine\nimport NetPathUI\nimport SwiftUI\n' || true
}
has_statements() {
  grep -vE '^([[:space:]]|$|//|/\*|[])}]|import |@|((public|private|fileprivate|internal|package|final|nonisolated) )*(struct|class|enum|extension|func|protocol|actor|typealias) )' "$1" | grep -q .
}
units=()
while IFS=$'\t' read -r n line marker; do
  block=$out/src/$n.swift platform=linux wrap="" continues=""
  IFS=',' read -ra words <<<"$marker"
  for word in "${words[@]}"; do
    case "${word// /}" in
      apple) platform=apple ;;
      continues) continues=1 ;;
      view-body|method|manifest) wrap=${word// /} ;;
      "") ;;
      *) echo "README.md:$((line - 1)): unknown word '$word' in the check comment" >&2; exit 1 ;;
    esac
  done
  if [ "$wrap" = manifest ]; then
    units+=("manifest - $block $line")
  elif [ -n "$continues" ]; then  # goes on with the last unit, if that is a program
    read -r kind platform file lines <<<"${units[*]: -1}"
    [ "$kind" = program ] || { echo "README.md:$line: 'continues', but no program before it" >&2; exit 1; }
    { source_location "$line"; cat "$block"; echo; } >>"$file"
    units[-1]="$kind $platform $file $lines,$line"
  elif [ -n "$wrap" ]; then
    file=$out/units/block$n.swift
    {
      fragment_imports "$platform"
      if [ "$wrap" = view-body ]; then
        printf 'struct FeedList: View { var body: some View { Text("Feed") } }\nstruct SettingsForm: View { var body: some View { Text("Settings") } }\n'
        printf 'struct ReadersView: View {\n    let networkMonitor: NetworkMonitor\n    var body: some View {\n'
      else
        printf '@MainActor final class ReadersViewModel {\n    var canDownload = false\n    func example() async throws {\n'
      fi
      source_location "$line"; cat "$block"; printf '#sourceLocation()\n    }\n}\n'
    } >"$file"
    units+=("library $platform $file $line")
  else
    kind=library file=$out/units/block$n.swift
    has_statements "$block" && kind=program file=$out/units/block$n/main.swift
    mkdir -p "$(dirname "$file")"
    { grep -qE '^import ' "$block" || fragment_imports "$platform"; source_location "$line"; cat "$block"; echo; } >"$file"
    units+=("$kind $platform $file $line")
  fi
done <"$out/index"

# The modules to compile against.
if printf '%s\n' "${units[@]}" | grep -q ' linux '; then
  bin=$(swift build --show-bin-path)
  for module in NetPath NetPathTestKit; do
    [ -f "$bin/Modules/$module.swiftmodule" ] || { echo "check-readme: no $module module in $bin: run swift build first" >&2; exit 1; }
  done
fi
if printf '%s\n' "${units[@]}" | grep -q ' apple '; then
  source scripts/apple-modules.sh
  build_apple_modules "$out/apple" >/dev/null
fi

check_manifest() {  # FILE LINE
  local dir folder
  for folder in NetPath netpath; do
    dir=$out/manifest$2-$folder
    mkdir -p "$dir/App"
    ln -s "$PWD" "$dir/$folder"
    sed "s|\"\.\./NetPath\"|\"../$folder\"|" "$1" >"$dir/App/Package.swift"
    swift package --package-path "$dir/App" --scratch-path "$dir/scratch" dump-package >"$dir/package.json" 2>"$dir/log" \
      || { echo "README.md:$2: the Package.swift in this block does not load (folder $folder):" >&2; cat "$dir/log" >&2; return 1; }
    # An empty source file for each target, where SwiftPM looks for it.
    python3 - "$dir/package.json" "$dir/App" <<'PY'
import json, os, sys
for target in json.load(open(sys.argv[1]))["targets"]:
    folder = os.path.join(sys.argv[2], target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"]))
    os.makedirs(folder, exist_ok=True)
    open(os.path.join(folder, "main.swift" if target["type"] == "executable" else "Stand-in.swift"), "w").close()
PY
    swift package --package-path "$dir/App" --scratch-path "$dir/scratch" show-dependencies >/dev/null 2>"$dir/log" \
      || { echo "README.md:$2: the Package.swift in this block does not resolve (folder $folder):" >&2; cat "$dir/log" >&2; return 1; }
  done
}

failed=0
for unit in "${units[@]}"; do
  read -r kind platform file lines <<<"$unit"
  echo "== README.md:$lines ($kind, $platform)"
  if [ "$kind" = manifest ]; then
    check_manifest "$file" "$lines" || failed=1
    continue
  fi
  flags=(-swift-version 6 -typecheck -diagnostic-style=llvm)
  [ "$kind" = library ] && flags+=(-parse-as-library)
  if [ "$platform" = apple ]; then flags+=(-I "$out/apple" -I "$out/apple/CNetlink"); else flags+=(-I "$bin/Modules" -I "$bin/CNetlink.build" -I "$bin/CTLS.build"); fi
  if ! (cd "$out" && swiftc "${flags[@]}" "$file") >"$file.log" 2>&1 \
     || grep -E '^[^ ].*: warning: ' "$file.log" | grep -vqF '[#no-usage]'; then
    cat "$file.log" >&2; failed=1
  fi
done
[ "$failed" -eq 0 ] || { echo "check-readme: a README example does not compile (above)" >&2; exit 1; }
echo "README examples type-check ($(wc -l <"$out/index") swift blocks)."
