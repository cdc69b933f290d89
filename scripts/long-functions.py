#!/usr/bin/env python3
"""Lists functions, initializers and closures-as-properties in Sources/ longer than a limit
(default 60 lines, from the declaration to its closing brace), longest first: issue 21's
"no function over 60 lines except pure decision tables". Usage: long-functions.py [LIMIT]"""
import pathlib, re, sys

limit = int(sys.argv[1]) if len(sys.argv) > 1 else 60
declaration = re.compile(r'^\s*(?:@[\w()]+\s+)*(?:(?:public|package|private|fileprivate|internal|static|override|mutating|nonisolated|final|class)\s+)*(?:func\s+[\w`]+|init[?!]?|deinit|var\s+\w+\s*:[^=]*\{\s*$)')
found = []
for path in sorted(pathlib.Path("Sources").rglob("*.[cs]*")):
    if path.suffix not in (".swift", ".c"):
        continue
    lines = path.read_text().split("\n")
    for start, line in enumerate(lines):
        if path.suffix == ".swift" and not declaration.match(line):
            continue
        if path.suffix == ".c" and not re.match(r'^[a-z].*\)\s*\{\s*$', line):
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            text = re.sub(r'"(?:\\.|[^"\\])*"', '""', lines[end].split("//")[0])
            depth += text.count("{") - text.count("}")
            opened = opened or "{" in text
            if opened and depth <= 0:
                break
        if not opened:
            continue
        length = end - start + 1
        if length > limit:
            found.append((length, f"{path}:{start + 1}", line.strip()[:90]))
for length, where, text in sorted(found, reverse=True):
    print(f"{length:4d}  {where}  {text}")
print(f"{len(found)} over {limit} lines", file=sys.stderr)
