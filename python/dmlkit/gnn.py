"""Distributed GNN training: task placement and transfer scheduling (``dmlkit gnn``): ``compare``
with the CLI's options as keyword arguments, and the placement and scheduling policies
(``policies()``, each with its ``role``)."""
from ._cli import call, command
from ._registry import entries_from_list_json

compare = command("gnn", "compare")


def policies():
    """Placements and schedulers (``dmlkit gnn list --format json``); traits["role"] tells which."""
    return entries_from_list_json(call(["dmlkit", "gnn", "list", "--format", "json"]))


__all__ = ["compare", "policies"]
