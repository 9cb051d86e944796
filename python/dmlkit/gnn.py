"""Distributed GNN training: task placement and transfer scheduling (``dmlkit gnn``): ``compare``
with the CLI's options as keyword arguments, and the placement and scheduling policies
(``policies()``, each with its ``role``)."""
import json

from ._cli import call, command
from ._registry import Entry, Knob

compare = command("gnn", "compare")


def policies():
    """Placements and schedulers (``dmlkit gnn list --format json``); traits["role"] tells which."""
    out = []
    for e in json.loads(call(["dmlkit", "gnn", "list", "--format", "json"])):
        knobs = [Knob(name=k["name"], default=k["default"], help=k["help"], type=k["type"].split(" ")[0],
                      range=k["type"]) for k in e["knobs"]]
        out.append(Entry(name=e["name"], summary=e["summary"], knobs=knobs, traits={"role": e["role"]}))
    return out


__all__ = ["compare", "policies"]
