#!/usr/bin/env bash
# Type-checks every ```swift block of README.md, taken from README.md itself, each on its own
# and as a reader would use it: Swift 6 language mode, none of the package's own flags.
#
# - A block is checked against NetPath and NetPathTestKit as the last debug build made them
#   (run `swift build` or `swift test` first), and against Swift Testing where it imports it.
# - A block with `import` lines is a whole file and is compiled exactly as written: a
#   main.swift when it has top-level statements, else a library file. A block without imports
#   is a fragment: it gets `import NetPath` and `import NetPathTestKit`, nothing else.
# - An HTML comment on the line before a block says more: <!-- check: WORD, WORD -->.
#     apple       against the Apple API stubs (scripts/apple-stubs) and NetPath, NetPathTestKit
#                 and NetPathUI compiled against them (scripts/apple-modules.sh, as
#                 check-apple.sh does); a fragment also gets NetPathUI, SwiftUI and Combine
#     continues   the block goes on with the program of the ```swift block before it
#     view-body   the block is the body of a SwiftUI view that has a `networkMonitor`
#                 (FeedList and SettingsForm stand for the reader's own views)
#     method      the block is the body of a method of the reader's own main-actor class,
#                 which has a `var canDownload`
#     manifest    a whole Package.swift: SwiftPM loads it with this checkout at the path it
#                 names (../NetPath), once as named and once in lower case, as a clone's
#                 folder may be; made-up folders stand for its targets' sources
#     none: WHY   not compiled, for the reason given (a block that is not Swift to compile)
#
# Diagnostics name README.md's own lines. Warnings fail too, except "is unused" and "never
# used" ([#no-usage]), which a fragment that shows a value (`network.connectivity  // .portal`)
# has by nature.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# 1. The blocks: $out/src/N.swift, and "N<TAB>first line<TAB>marker" for each in $out/index.
mkdir -p "$out/src"
awk -v src="$out/src" -v index_file="$out/index" '
  function fail(message) { print "README.md:" NR ": " message > "/dev/stderr"; failed = 1 }
  inswift { if ($0 ~ /^```[[:space:]]*$/) { inswift = 0; close(file) } else print > file; next }
  inother { if ($0 ~ /^```[[:space:]]*$/) inother = 0; next }
  /^<!-- check: .* -->[[:space:]]*$/ {
    if (marker != "") fail("a second check comment; the first is not right before a ```swift block")
    marker = $0; sub(/^<!-- check: /, "", marker); sub(/ -->[[:space:]]*$/, "", marker); next
  }
  /^<!-- *check/ { fail("not a check comment: write <!-- check: WORD, WORD -->"); next }
  /^```/ {
    info = tolower($0); sub(/^```/, "", info); gsub(/[[:space:]]/, "", info)
    if (info == "swift") {
      n++; file = src "/" n ".swift"; printf "" > file; inswift = 1
      printf "%d\t%d\t%s\n", n, NR + 1, marker > index_file
    } else {
      if (marker != "") fail("a check comment before a block that is not ```swift")
      inother = 1
    }
    marker = ""; next
  }
  /[^[:space:]]/ { if (marker != "") fail("a check comment must be right before a ```swift block"); marker = "" }
  END {
    if (inswift || inother) fail("a code block is not closed")
    if (n == 0) fail("no ```swift block found")
    exit failed
  }
' README.md

# 2. Each block made into a unit to compile: units[i] = "KIND PLATFORM FILE LINES", KIND being
#    program (a main.swift), library or manifest, LINES the first line of each block in it.
source_location() { printf '#sourceLocation(file: "README.md", line: %d)\n' "$1"; }
fragment_imports() {
  echo "import NetPath"; echo "import NetPathTestKit"
  if [ "$1" = apple ]; then echo "import Combine"; echo "import NetPathUI"; echo "import SwiftUI"; fi
}
# Top-level statements (not only declarations) make a block a program.
has_statements() {
  grep -vE '^([[:space:]]|$|//|/\*|[])}]|import |@|((public|private|fileprivate|internal|package|final|nonisolated) )*(struct|class|enum|extension|func|protocol|actor|typealias) )' "$1" | grep -q .
}

units=()
last_program=""   # the index in units of the program a `continues` block goes on with
blocks=0
while IFS=$'\t' read -r n line marker; do
  block="$out/src/$n.swift"
  blocks=$((blocks + 1))
  platform=linux wrap="" continues=""
  IFS=',' read -ra words <<<"$marker"
  for word in "${words[@]}"; do
    word="${word#"${word%%[![:space:]]*}"}"; word="${word%"${word##*[![:space:]]}"}"
    case "$word" in
      apple) platform=apple ;;
      continues) continues=1 ;;
      view-body|method|manifest) wrap="$word" ;;
      none:?*) echo "== README.md:$line not compiled:${word#none:}"; continue 2 ;;
      "") ;;
      *) echo "README.md:$((line - 1)): unknown word '$word' in the check comment" >&2; exit 1 ;;
    esac
  done

  if [ "$wrap" = manifest ]; then
    units+=("manifest - $block $line")
    last_program=""
  elif [ -n "$continues" ]; then
    [ -n "$last_program" ] || { echo "README.md:$line: 'continues', but no program before it" >&2; exit 1; }
    read -r kind platform file lines <<<"${units[$last_program]}"
    { source_location "$line"; cat "$block"; echo; } >>"$file"
    units[$last_program]="$kind $platform $file $lines,$line"
  elif [ -n "$wrap" ]; then
    file="$out/units/block$n.swift"; mkdir -p "$out/units"
    {
      fragment_imports "$platform"
      if [ "$wrap" = view-body ]; then
        echo 'struct FeedList: View { var body: some View { Text("Feed") } }'
        echo 'struct SettingsForm: View { var body: some View { Text("Settings") } }'
        echo 'struct ReadersView: View {'
        echo '    let networkMonitor: NetworkMonitor'
        echo '    var body: some View {'
      else
        echo '@MainActor final class ReadersViewModel {'
        echo '    var canDownload = false'
        echo '    func example() async throws {'
      fi
      source_location "$line"; cat "$block"; echo '#sourceLocation()'
      echo '    }'; echo '}'
    } >"$file"
    units+=("library $platform $file $line")
    last_program=""
  else
    if has_statements "$block"; then
      file="$out/units/block$n/main.swift" kind=program
    else
      file="$out/units/block$n.swift" kind=library
    fi
    mkdir -p "$(dirname "$file")"
    {
      grep -qE '^import ' "$block" || fragment_imports "$platform"
      source_location "$line"; cat "$block"; echo
    } >"$file"
    units+=("$kind $platform $file $line")
    if [ "$kind" = program ]; then last_program=$((${#units[@]} - 1)); else last_program=""; fi
  fi
done <"$out/index"

# 3. The modules to compile against.
need() { printf '%s\n' "${units[@]}" | grep -q " $1 "; }
if need linux; then
  linux_modules=$(swift build --show-bin-path)/Modules
  for module in NetPath NetPathTestKit; do
    [ -f "$linux_modules/$module.swiftmodule" ] \
      || { echo "check-readme: no $module module in $linux_modules: run swift build first" >&2; exit 1; }
  done
  mkdir -p "$out/linux"
  printf 'module CNetlink {\n  header "%s/Sources/CNetlink/include/CNetlink.h"\n  export *\n}\n' "$PWD" \
    >"$out/linux/module.modulemap"
fi
if need apple; then
  source scripts/apple-modules.sh
  mkdir -p "$out/apple"
  build_apple_modules "$out/apple" >/dev/null \
    || { echo "check-readme: NetPath does not build against the Apple stubs (see scripts/check-apple.sh)" >&2; exit 1; }
fi

# 4. Compile each unit.
check_manifest() {  # FILE LINE
  local dir folder
  for folder in NetPath netpath; do
    dir="$out/manifest$2-$folder"
    mkdir -p "$dir/App"
    ln -s "$PWD" "$dir/$folder"
    sed "s|\"\.\./NetPath\"|\"../$folder\"|" "$1" >"$dir/App/Package.swift"
    swift package --package-path "$dir/App" --scratch-path "$dir/scratch" dump-package >"$dir/package.json" 2>"$dir/log" \
      || { echo "README.md:$2: the Package.swift in this block does not load (folder $folder):" >&2; cat "$dir/log" >&2; return 1; }
    python3 - "$dir/package.json" "$dir/App" <<'PY'
import json, os, sys
package = json.load(open(sys.argv[1]))
for target in package["targets"]:
    folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", target["name"])
    os.makedirs(os.path.join(sys.argv[2], folder), exist_ok=True)
    open(os.path.join(sys.argv[2], folder, "main.swift" if target["type"] == "executable" else "Stand-in.swift"), "w").close()
PY
    swift package --package-path "$dir/App" --scratch-path "$dir/scratch" show-dependencies >/dev/null 2>"$dir/log" \
      || { echo "README.md:$2: the Package.swift in this block does not resolve (folder $folder):" >&2; cat "$dir/log" >&2; return 1; }
  done
}

failed=0
for unit in "${units[@]}"; do
  read -r kind platform file lines <<<"$unit"
  line=${lines%%,*}
  echo "== README.md:$lines ($kind, $platform)"
  if [ "$kind" = manifest ]; then
    check_manifest "$file" "$line" || failed=1
    continue
  fi
  flags=(-swift-version 6 -typecheck -diagnostic-style=llvm)
  [ "$kind" = library ] && flags+=(-parse-as-library)
  if [ "$platform" = apple ]; then
    flags+=(-I "$out/apple" -I "$out/apple/CNetlink")
  else
    flags+=(-I "$linux_modules" -I "$out/linux")
  fi
  log="$file.log"
  if ! (cd "$out" && swiftc "${flags[@]}" "$file") >"$log" 2>&1; then
    cat "$log" >&2; failed=1
  elif grep -E '^[^ ].*: warning: ' "$log" | grep -vqF '[#no-usage]'; then
    cat "$log" >&2; failed=1
  fi
done
[ "$failed" -eq 0 ] || { echo "check-readme: a README example does not compile (above)" >&2; exit 1; }
echo "README examples type-check ($blocks swift blocks)."
