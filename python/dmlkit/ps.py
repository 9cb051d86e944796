"""Parameter-server load distribution under stragglers: ``compare`` (``dmlkit ps compare``) and
the registry of assignment policies (``policies()``)."""
from . import _dmlkit
from ._cli import command
from ._registry import entries

compare = command("ps", "compare")


def policies():
    return entries(_dmlkit.ps_policies())


__all__ = ["compare", "policies"]
