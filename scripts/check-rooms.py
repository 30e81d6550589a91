#!/usr/bin/env python3
"""The rooms of a component include one another in one downward order.

    check-rooms.py COMPONENT_DIR [--order ROOM,ROOM,...] [COMPONENT_DIR [--order ...]] ...

A room is a first-level folder of COMPONENT_DIR (shim/base, analyzer/readers, ...); the
files directly in COMPONENT_DIR form the room "." (the analyzer's model.hpp and friends).
Every `#include "..."` of every .hpp/.cpp/.h/.c file is resolved as the compiler would
with the component's include root: first beside the including file, then from
COMPONENT_DIR. Includes that resolve outside the component (clprof/..., system headers)
are not edges.

It fails (exit 1) on:
  - any circle among the rooms (a strongly connected set of two or more), naming every
    include behind each edge of it, FILE:LINE;
  - with --order (lowest room first), any include from a room to a room above it, or a
    room that the order does not name.
Exit 0 prints the room graph, one line a room with the rooms it includes.
Exit 2: bad arguments or a folder that does not exist.

Threads: none. Reads files only; writes to stdout/stderr.
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCE_ENDINGS = (".hpp", ".cpp", ".h", ".c", ".inc")


def room_of(component, path):
    rel = os.path.relpath(path, component)
    parts = rel.split(os.sep)
    return "." if len(parts) == 1 else parts[0]


def include_edges(component):
    """Yields (from_room, to_room, 'file:line: #include "x"')."""
    component = os.path.abspath(component)
    for directory, _, files in sorted(os.walk(component)):
        for name in sorted(files):
            if not name.endswith(SOURCE_ENDINGS):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8", errors="replace") as source:
                for number, line in enumerate(source, 1):
                    match = INCLUDE.match(line)
                    if not match:
                        continue
                    target = None
                    for root in (directory, component):
                        candidate = os.path.normpath(os.path.join(root, match.group(1)))
                        if os.path.isfile(candidate):
                            target = candidate
                            break
                    if target is None or not target.startswith(component + os.sep):
                        continue
                    source_room = room_of(component, path)
                    target_room = room_of(component, target)
                    if source_room != target_room:
                        where = "%s:%d: #include \"%s\"" % (
                            os.path.relpath(path, os.path.dirname(component)), number, match.group(1))
                        yield source_room, target_room, where


def circles(graph):
    """Tarjan's strongly connected components of two or more rooms."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []
    counter = [0]

    def visit(node):
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def check(component, order):
    if not os.path.isdir(component):
        print("check-rooms: %s: no such folder" % component, file=sys.stderr)
        return 2
    graph, evidence, rooms = {}, {}, set()
    for directory in os.listdir(component):
        if os.path.isdir(os.path.join(component, directory)):
            rooms.add(directory)
    for source_room, target_room, where in include_edges(component):
        rooms.update((source_room, target_room))
        graph.setdefault(source_room, set()).add(target_room)
        evidence.setdefault((source_room, target_room), []).append(where)
    failures = []
    for group in circles(graph):
        lines = ["circle among %s's rooms: %s" % (component, " <-> ".join(group))]
        for (a, b), wheres in sorted(evidence.items()):
            if a in group and b in group:
                lines.append("  %s -> %s (%d include%s):" % (a, b, len(wheres), "" if len(wheres) == 1 else "s"))
                lines.extend("    " + w for w in wheres)
        failures.append("\n".join(lines))
    if order:
        rank = {room: i for i, room in enumerate(order)}
        unnamed = sorted(r for r in rooms if r not in rank)
        if unnamed:
            failures.append("%s: rooms the order does not name: %s (order: %s)" % (
                component, ", ".join(unnamed), " < ".join(order)))
        for (a, b), wheres in sorted(evidence.items()):
            if a in rank and b in rank and rank[b] > rank[a]:
                failures.append("%s: room %s includes %s, which stands above it (order: %s):\n%s" % (
                    component, a, b, " < ".join(order), "\n".join("    " + w for w in wheres)))
    if failures:
        print("\n".join(failures), file=sys.stderr)
        return 1
    print("%s: %d rooms, no circle%s" % (component, len(rooms), " , downward order " + " < ".join(order) if order else ""))
    for room in sorted(rooms, key=lambda r: (order.index(r) if r in order else -1, r)):
        print("  %s -> %s" % (room, ", ".join(sorted(graph.get(room, ()))) or "(nothing)"))
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    status, i = 0, 0
    while i < len(argv):
        component, order = argv[i], []
        i += 1
        if i < len(argv) and argv[i] == "--order":
            if i + 1 >= len(argv):
                print("check-rooms: --order needs ROOM,ROOM,...", file=sys.stderr)
                return 2
            order = [r for r in argv[i + 1].split(",") if r]
            i += 2
        result = check(component.rstrip("/"), order)
        if result == 2:
            return 2
        status = max(status, result)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
