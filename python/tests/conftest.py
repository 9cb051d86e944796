"""pytest suite of the Python module (run by `make test` through CTest: python/CMakeLists.txt sets
PYTHONPATH=build/python, DMLKIT_BINARY and DMLKIT_SOURCE_DIR, and uses /usr/bin/python3)."""
import json
import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.environ.get("DMLKIT_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
BINARY = os.environ.get("DMLKIT_BINARY", os.path.join(SOURCE_DIR, "build", "bin", "dmlkit"))
EXAMPLES = os.path.join(SOURCE_DIR, "examples")
if EXAMPLES not in sys.path:
    sys.path.insert(0, EXAMPLES)


def run_cli(args, out_dir=None, check=True):
    """The dmlkit program; returns (status, stdout, stderr, results.json or None)."""
    argv = [BINARY, *args] + (["--out", str(out_dir)] if out_dir else [])
    p = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError(f"{' '.join(argv)}: exit {p.returncode}\n{p.stderr}")
    results = None
    if out_dir and os.path.exists(os.path.join(out_dir, "results.json")):
        with open(os.path.join(out_dir, "results.json")) as f:
            results = json.load(f)
    return p.returncode, p.stdout, p.stderr, results


@pytest.fixture
def cli():
    return run_cli
