"""dmlkit from Python: every family's runs, results as Python and NumPy objects, and policies
written in Python plugged into the same seams as the C++ ones (docs/python.md).

    PYTHONPATH=build/python /usr/bin/python3 -c "import dmlkit; \\
        print(dmlkit.cluster.simulate(workload='pollux-6', cluster='16x4', policy='tiresias', seed=1).summary)"

Families: dmlkit.cluster, dmlkit.comm, dmlkit.ps, dmlkit.gnn, dmlkit.influence, dmlkit.continual,
dmlkit.football, dmlkit.sweep. Each command
function takes the CLI's options as keyword arguments (``--policy-param`` -> ``policy_param``) and
returns a :class:`Results` (the results.json of docs/results-schema.md).
"""
from ._dmlkit import Error, __version__
from .results import Results, Record, Summary, SummaryEntry, Stat, Table
from ._registry import Knob, Entry
from . import cluster, comm, ps, influence, continual, football, gnn, sweep

__all__ = ["Error", "__version__", "Results", "Record", "Summary", "SummaryEntry", "Stat", "Table",
           "Knob", "Entry", "cluster", "comm", "ps", "gnn", "influence", "continual", "football", "sweep",
           "run"]


def run(*words, **options):
    """Runs any CLI command: ``dmlkit.run("cluster", "simulate", policy="fifo")``."""
    from ._cli import run_command
    return run_command(list(words), options)
