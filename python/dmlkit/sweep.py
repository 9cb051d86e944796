"""Sweeps (``dmlkit sweep``): grids of runs of any command, locally in parallel or as a Slurm job
array. ``plan(file)`` gives the grid, ``run(file, out=...)`` runs it (resumable) and returns the
merged results, ``collect(folder)`` merges again, ``status(folder)`` prints how far it is."""
import json
import os

from ._cli import call, to_argv
from .results import Results


def plan(file, **options):
    """The grid of a sweep file as a dict (``dmlkit sweep plan FILE --format json``)."""
    return json.loads(call(to_argv(["sweep", "plan"], dict(options, format="json")) + [os.fspath(file)]))


def _program():
    """The dmlkit program the cells run: $DMLKIT_BINARY, else build/bin/dmlkit beside this package
    (build/python/dmlkit), else, installed, PREFIX/bin/dmlkit (the package is
    PREFIX/lib/python3.X/dist-packages/dmlkit); inside Python, "this program" would be the Python
    interpreter."""
    env = os.environ.get("DMLKIT_BINARY")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.normpath(os.path.join(here, "..", "..", "bin", "dmlkit"))
    installed = os.path.normpath(os.path.join(here, "..", "..", "..", "..", "bin", "dmlkit"))
    return installed if not os.path.exists(built) and os.path.exists(installed) else built


def run(file, out, **options):
    """Runs every cell not yet finished into the sweep folder `out`, then merges them: the merged
    results (dmlkit.Results, one record per cell and name, the axis values in params)."""
    options.setdefault("dmlkit", _program())
    text = call(to_argv(["sweep", "run"], options) + [os.fspath(file), "--out", os.fspath(out)])
    return Results.load(out, text=text)


def collect(folder, **options):
    """Merges the cells' results of a sweep folder again; returns them."""
    text = call(to_argv(["sweep", "collect"], options) + [os.fspath(folder)])
    return Results.load(options.get("out", folder), text=text)


def status(folder):
    """What `dmlkit sweep status FOLDER` prints."""
    return call(["dmlkit", "sweep", "status", os.fspath(folder)])


__all__ = ["plan", "run", "collect", "status"]
