#!/usr/bin/env python3
"""The body of deploy/link/alarmd.order from callgrind profiles (make-order.sh runs it).

    order-from-profile.py MAP BINARY TIER [TIER...] > ORDER

MAP is lld's link map (-Map) of BINARY, the unstripped alarmd that was profiled. Each TIER is a
comma-separated list of callgrind outputs taken with --dump-instr=yes --compress-pos=no. Every
instruction address executed in BINARY is located in its input section (with -function-sections,
one function); each executed section is named by one of its symbols and printed once. lld
orders every section that has a listed symbol, local symbols of the same name in other objects
included (the compiler's merged helpers, objectdestroyTm and the like, exist in many objects,
and the ones that run are many and small), so the name chosen is the one whose other holders
are smallest; a section is left out when that name would bring along a section of 16 KiB or
more or over 64 KiB in all. The order is tier by tier:

  1. the sections under 16 KiB executed in the first tier, in their address order (which keeps
     each module's functions together), then those of the second tier not yet printed, and so on;
  2. then the larger sections of any tier, in address order: precompiled libraries' whole-object
     .text sections (the static Swift runtime and Foundation are not built with
     -function-sections), executed in part, which would only spread the small functions apart.

Sections without a symbol (the compiler's .text..L* helpers) cannot be named here;
deploy/link/text-order.ld places them. A summary goes to stderr.
"""
import bisect
import collections
import re
import sys

LARGE = 16 * 1024
SHARED_LIMIT = 64 * 1024


def read_map(path):
    """The input sections of .text-like output sections: [address, size, name, [symbols]]."""
    sections, current, output = [], None, None
    line_format = re.compile(r'^\s*([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+(\d+)\s(\s*)(\S.*)$')
    for line in open(path):
        match = line_format.match(line.rstrip('\n'))
        if not match:
            continue
        indent, name = len(match.group(5)), match.group(6)
        if indent == 0:
            output, current = name, None
        elif not output.startswith('.text'):
            continue
        elif indent == 8:
            current = [int(match.group(1), 16), int(match.group(3), 16), name, []]
            sections.append(current)
        elif indent == 16 and current is not None:
            current[3].append(name)
    sections.sort(key=lambda section: section[0])
    return sections


def executed(paths, binary, sections, starts):
    """Indices of the sections whose code ran, from callgrind outputs."""
    found = set()
    for path in paths:
        in_binary = False
        for line in open(path, errors='replace'):
            if line.startswith('ob='):
                in_binary = line.strip()[3:] == binary
                continue
            if not in_binary or not line.startswith('0x'):
                continue
            address = int(line.split()[0], 16)
            index = bisect.bisect_right(starts, address) - 1
            if index >= 0 and address < sections[index][0] + sections[index][1]:
                found.add(index)
    return found


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    map_path, binary, tiers = sys.argv[1], sys.argv[2], [t.split(',') for t in sys.argv[3:]]
    sections = read_map(map_path)
    starts = [section[0] for section in sections]
    holders = collections.defaultdict(list)
    for section in sections:
        for symbol in section[3]:
            holders[symbol].append(section)

    def others(symbol, section):
        return sum(h[1] for h in holders[symbol] if h is not section)

    def name(section):
        """The symbol to list for section, or None."""
        if not section[3]:
            return None
        best = min(section[3], key=lambda symbol: others(symbol, section))
        if any(h[1] >= LARGE for h in holders[best] if h is not section) or others(best, section) > SHARED_LIMIT:
            return None
        return best

    printed, large, names = set(), set(), []
    for number, paths in enumerate(tiers, 1):
        ran = executed(paths, binary, sections, starts) - printed
        small = sorted(index for index in ran if sections[index][1] < LARGE)
        large |= ran - set(small)
        printed |= ran
        named = [(index, name(sections[index])) for index in small]
        named = [(index, symbol) for index, symbol in named if symbol]
        names += [symbol for _, symbol in named]
        print(f'tier {number}: {len(ran)} sections executed, {len(small)} under {LARGE // 1024} KiB '
              f'({sum(sections[i][1] for i in small) / 1024:.0f} KiB); listed {len(named)} '
              f'({sum(sections[i][1] for i, _ in named) / 1024:.0f} KiB)', file=sys.stderr)
    names += [symbol for symbol in (name(sections[index]) for index in sorted(large)) if symbol]
    print(f'larger sections: {len(large)} ({sum(sections[i][1] for i in large) / 1024:.0f} KiB)', file=sys.stderr)
    seen = set()
    for symbol in names:
        if symbol not in seen:
            seen.add(symbol)
            print(symbol)


main()
