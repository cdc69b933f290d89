#!/usr/bin/env python3
"""Per-event working set from a valgrind lackey trace (issue 37): how many distinct 64-byte
lines (and 4 KiB pages) of code and of data a watcher touches from one printed line to the
next: the rest of the turn that wrote the line, the wait, and the turn of the next event up to
its write. After an idle gap those lines are cold, and on this machine what a turn costs follows
their number, not its instructions. Deterministic for a given binary and input.

    working-set.py TRACE WRITE_ADDRESS

WRITE_ADDRESS is libc's write() as loaded (hex). Prints one JSON object: the medians over the
segments between two writes (the first, which follows the initial line, is left out)."""
import json
import statistics
import sys


def segments(path, write):
    code, data, count = set(), set(), 0
    with open(path) as trace:
        for line in trace:
            kind = line[:2]
            if kind == "I ":
                address = int(line[3:line.index(",", 3)], 16)
                if address == write:
                    yield code, data, count
                    code, data, count = set(), set(), 0
                code.add(address >> 6)
                count += 1
            elif kind in (" L", " S", " M"):
                data.add(int(line[3:line.index(",", 3)], 16) >> 6)


def main():
    path, write = sys.argv[1], int(sys.argv[2], 16)
    found = list(segments(path, write))[2:]  # start-up, then the segment after the first line
    if not found:
        sys.exit("working-set.py: fewer than three lines written in " + path)
    median = statistics.median
    print(json.dumps({
        "turns": len(found),
        "instructions": median([count for _, _, count in found]),
        "code_lines": median([len(code) for code, _, _ in found]),
        "data_lines": median([len(data) for _, data, _ in found]),
        "code_pages": median([len({line >> 6 for line in code}) for code, _, _ in found]),
        "data_pages": median([len({line >> 6 for line in data}) for _, data, _ in found]),
    }))


main()
