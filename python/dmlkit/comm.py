"""Communication scheduling of one training job (SimGrid): ``simulate``, ``compare``, ``tune``
and the registry (``schedulers()``), with the options of ``dmlkit comm ...``."""
from . import _dmlkit
from ._cli import command
from ._registry import entries

simulate = command("comm", "simulate")
compare = command("comm", "compare")
tune = command("comm", "tune")


def schedulers():
    return entries(_dmlkit.comm_schedulers())


__all__ = ["simulate", "compare", "tune", "schedulers"]
