#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""cgties.py BLOCKS -- print each report block (one line per row: the row
and its call graph joined by a literal backslash-n, as 0203's blocks()
writes them) with the siblings of equal percentage in one canonical order.

perf orders call-graph siblings of equal period by (DSO object address,
symbol start): the DSO part is the address of a heap object, which follows
allocation order most of the time and not always.  Two outputs that differ
only in the order of such tied siblings print the same here; any other
difference (a percentage, a frame, the nesting) still shows.

A tree line is an entry "|--P%--NAME", " --P%--NAME" or "---NAME" (its
column is that of the dashes), a continuation "NAME" (the node's run of
single children) or a connector ("|" and blanks only).
"""
import re
import sys

ENTRY = re.compile(r'(?:(?<=[| ])--([0-9.]+%)--|---)(.*)$')


def parse(lines):
    root = {'col': -1, 'pct': '', 'names': [], 'kids': [], 'ncol': -1}
    stack = [root]
    for ln in lines:
        if not ln.strip(' |'):
            continue
        m = ENTRY.search(ln)
        if m and not ln[:m.start()].strip(' |'):
            col = m.start()
            while len(stack) > 1 and stack[-1]['col'] >= col:
                stack.pop()
            node = {'col': col, 'pct': m.group(1) or '', 'names': [m.group(2)],
                    'kids': [], 'ncol': m.start(2)}
            stack[-1]['kids'].append(node)
            stack.append(node)
            continue
        text = ln.lstrip(' |')
        tcol = len(ln) - len(text)
        owner = next((n for n in reversed(stack) if n['ncol'] == tcol), stack[-1])
        owner['names'].append(text)
    return root


def canon(node):
    kids = [canon(k) for k in node['kids']]
    kids.sort(key=lambda k: (-float(k[0].rstrip('%') or 0), k[1]))
    return (node['pct'], node['pct'] + ':' + '|'.join(node['names']) +
            '{' + ','.join(k[1] for k in kids) + '}')


def main():
    with open(sys.argv[1], encoding='utf-8', errors='surrogateescape') as f:
        for block in f.read().splitlines():
            parts = block.split('\\n')
            print(parts[0] + ' ' + canon(parse(parts[1:]))[1])


if __name__ == '__main__':
    main()
