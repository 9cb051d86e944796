#!/usr/bin/env python3
"""Checks the architecture's layers on the sources (cmake/DmlkitLayers.cmake): every
`#include "<module>/..."` in src/<module>/ and tests/<module>/ names the module itself or one it
may use, and none of them includes the command-line program (apps/dmlkit) or its test helpers:
tests/apps/ and tests/browser/ test the whole program and may include anything.

Usage: check-layers.py LAYERS_FILE SOURCE_DIR
LAYERS_FILE: "module: dep dep ... | tests: dep ..." per line (written by CMake into the build
folder; what follows "tests:" only tests/<module>/ may also use).
Prints one line per forbidden include (file:line: ...) and exits 1 if there is any.
"""
import pathlib
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/')


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    layers, test_extra = {}, {}
    for line in pathlib.Path(sys.argv[1]).read_text().splitlines():
        if ":" in line:
            module, deps = line.split(":", 1)
            deps, _, tests = deps.partition("| tests:")
            layers[module.strip()] = set(deps.split())
            test_extra[module.strip()] = set(tests.split())
    root = pathlib.Path(sys.argv[2])
    bad = 0
    for top in ("src", "tests"):
        for module, deps in sorted(layers.items()):
            folder = root / top / module
            if not folder.is_dir():
                continue
            allowed = deps | {module} | (test_extra[module] if top == "tests" else set())
            for path in sorted(folder.rglob("*")):
                if path.suffix not in (".h", ".cpp", ".hpp", ".cc"):
                    continue
                for number, text in enumerate(path.read_text(errors="replace").splitlines(), 1):
                    m = INCLUDE.match(text)
                    if m and m.group(1) in layers and m.group(1) not in allowed:
                        rel = path.relative_to(root)
                        print(f"{rel}:{number}: includes {m.group(1)}/, which {module} may not use "
                              f"(allowed: {' '.join(sorted(allowed))}; cmake/DmlkitLayers.cmake)")
                        bad += 1
                    # The CLI (apps/dmlkit, "dmlkit/...") and its test helpers (tests/apps, "apps/...")
                    # sit above every module: a module and its tests reach it only through tests/apps/.
                    if m and m.group(1) in ("dmlkit", "apps"):
                        print(f"{path.relative_to(root)}:{number}: includes the command-line program "
                              f"({m.group(1)}/) from {top}/{module}/ (CLI tests live in tests/apps/)")
                        bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
