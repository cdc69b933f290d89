#!/usr/bin/env python3
"""Per-event working set from a valgrind lackey trace (issue 37): how many distinct 64-byte
lines (and 4 KiB pages) of code and of data a watcher touches from one printed line to the
next: the rest of the turn that wrote the line, the wait, and the turn of the next event up to
its write. After an idle gap those lines and pages are cold, and on this machine what a turn
costs follows their number, not its instructions. Deterministic for a given binary and input.

    working-set.py TRACE WRITE_ADDRESS [WAKE_ADDRESS ...] [ADDRESS=NAME ...]

WRITE_ADDRESS is libc's write() as loaded (hex); each WAKE_ADDRESS a function the watcher
waits in (epoll_wait, recvmsg): the `wake_` figures count from the last call of one before a
write to that write, what a turn touches between the event's arrival and its line. Prints one
JSON object: the medians over the segments between two writes (the first, which follows the
initial line, is left out).

Each ADDRESS=NAME (a syscall's libc wrapper: connect, sendto) splits a turn into steps where
it is called: `steps` gives, per kind of turn (the calls it made, in order), each step's
medians of the lines and pages first touched in the turn there: [name, code lines, code
pages, data lines, data pages]. With Benchmarks/latency-trace.sh's time of each step: what
a cold line and a cold page cost.
"""
import json
import statistics
import sys


def segments(path, write, wakes, splits):
    code, data, count = set(), set(), 0
    wake_code, wake_data, wake_count = set(), set(), 0
    steps = [["wake-up", set(), set()]]
    with open(path) as trace:
        for line in trace:
            kind = line[:2]
            if kind == "I ":
                address = int(line[3:line.index(",", 3)], 16)
                if address == write:
                    yield (code, data, count), (wake_code, wake_data, wake_count), steps
                    code, data, count = set(), set(), 0
                    wake_code, wake_data, wake_count = set(), set(), 0
                    steps = [["wake-up", set(), set()]]
                elif address in wakes:
                    wake_code, wake_data, wake_count = set(), set(), 0
                    steps = [["wake-up", set(), set()]]
                elif address in splits:
                    steps.append([splits[address], set(), set()])
                if address >> 6 not in wake_code:
                    steps[-1][1].add(address >> 6)
                code.add(address >> 6)
                wake_code.add(address >> 6)
                count += 1
                wake_count += 1
            elif kind in (" L", " S", " M"):
                line_address = int(line[3:line.index(",", 3)], 16) >> 6
                if line_address not in wake_data:
                    steps[-1][2].add(line_address)
                data.add(line_address)
                wake_data.add(line_address)


def step_figures(found):
    """Per kind of turn, each step's medians of what it touches first in the turn."""
    kinds = {}
    for steps in found:
        kinds.setdefault(" ".join(name for name, _, _ in steps), []).append(steps)
    result = {}
    for kind, turns in sorted(kinds.items(), key=lambda item: -len(item[1])):
        figures = []
        for index, (name, _, _) in enumerate(turns[0]):
            code_pages = [{line >> 6 for step in turn[:index] for line in step[1]} for turn in turns]
            data_pages = [{line >> 6 for step in turn[:index] for line in step[2]} for turn in turns]
            figures.append([name] + [statistics.median(values) for values in (
                [len(turn[index][1]) for turn in turns],
                [len({line >> 6 for line in turn[index][1]} - seen) for turn, seen in zip(turns, code_pages)],
                [len(turn[index][2]) for turn in turns],
                [len({line >> 6 for line in turn[index][2]} - seen) for turn, seen in zip(turns, data_pages)])])
        result["%s (%d turns)" % (kind, len(turns))] = figures
    return result


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
    wakes = {int(address, 16) for address in sys.argv[3:] if "=" not in address}
    splits = {int(address, 16): name for address, name in (item.split("=") for item in sys.argv[3:] if "=" in item)}
    found = list(segments(path, write, wakes, splits))[2:]  # start-up, then the segment after the first line
    if not found:
        sys.exit("working-set.py: fewer than three lines written in " + path)
    result = {"turns": len(found)}
    result.update(figures([whole for whole, _, _ in found], ""))
    if wakes:
        result.update(figures([wake for _, wake, _ in found], "wake_"))
    if splits:
        result["steps"] = step_figures([steps for _, _, steps in found])
    print(json.dumps(result))


main()
