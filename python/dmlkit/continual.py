"""Continual learning: ``angle_sweep``, ``replay``, ``sign_angle`` (``dmlkit continual ...``) and
the registry of replay strategies (``strategies()``)."""
from . import _dmlkit
from ._cli import command
from ._registry import entries

angle_sweep = command("continual", "angle-sweep")
replay = command("continual", "replay")
sign_angle = command("continual", "sign-angle")


def strategies():
    return entries(_dmlkit.replay_strategies())


__all__ = ["angle_sweep", "replay", "sign_angle", "strategies"]
