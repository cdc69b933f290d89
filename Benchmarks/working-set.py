#!/usr/bin/env python3
"""Per-event working set from a valgrind lackey trace (issue 37): how many distinct 64-byte
lines (and 4 KiB pages) of code and of data a watcher touches from one printed line to the
next: the rest of the turn that wrote the line, the wait, and the turn of the next event up to
its write. After an idle gap those lines and pages are cold, and on this machine what a turn
costs follows their number, not its instructions. Deterministic for a given binary and input.

    working-set.py TRACE WRITE_ADDRESS [WAKE_ADDRESS ...]

WRITE_ADDRESS is libc's write() as loaded (hex); each WAKE_ADDRESS a function the watcher
waits in (epoll_wait, recvmsg): the `wake_` figures count from the last call of one before a
write to that write, what a turn touches between the event's arrival and its line. Prints one
JSON object: the medians over the segments between two writes (the first, which follows the
initial line, is left out)."""
import json
import statistics
import sys


def segments(path, write, wakes):
    code, data, count = set(), set(), 0
    wake_code, wake_data, wake_count = set(), set(), 0
    with open(path) as trace:
        for line in trace:
            kind = line[:2]
            if kind == "I ":
                address = int(line[3:line.index(",", 3)], 16)
                if address == write:
                    yield (code, data, count), (wake_code, wake_data, wake_count)
                    code, data, count = set(), set(), 0
                    wake_code, wake_data, wake_count = set(), set(), 0
                elif address in wakes:
                    wake_code, wake_data, wake_count = set(), set(), 0
                code.add(address >> 6)
                wake_code.add(address >> 6)
                count += 1
                wake_count += 1
            elif kind in (" L", " S", " M"):
                line_address = int(line[3:line.index(",", 3)], 16) >> 6
                data.add(line_address)
                wake_data.add(line_address)


def figures(found, prefix):
    median = statistics.median
    return {
        prefix + "instructions": median([count for _, _, count in found]),
        prefix + "code_lines": median([len(code) for code, _, _ in found]),
        prefix + "data_lines": median([len(data) for _, data, _ in found]),
        prefix + "code_pages": median([len({line >> 6 for line in code}) for code, _, _ in found]),
        prefix + "data_pages": median([len({line >> 6 for line in data}) for _, data, _ in found]),
    }


def main():
    path, write = sys.argv[1], int(sys.argv[2], 16)
    wakes = {int(address, 16) for address in sys.argv[3:]}
    found = list(segments(path, write, wakes))[2:]  # start-up, then the segment after the first line
    if not found:
        sys.exit("working-set.py: fewer than three lines written in " + path)
    result = {"turns": len(found)}
    result.update(figures([whole for whole, _ in found], ""))
    if wakes:
        result.update(figures([wake for _, wake in found], "wake_"))
    print(json.dumps(result))


main()
