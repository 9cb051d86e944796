"""Online influence maximization: ``run`` (``dmlkit influence run``), the registry
(``algorithms()``) and algorithms written in Python.

A Python algorithm subclasses :class:`Algorithm` and picks k seeds per step from what a bandit sees
(the present nodes and its own feedback); ``run(algorithms=[MyBandit, "rsb"], ...)`` or
``dmlkit influence run --algorithm-file FILE.py:CLASS`` runs it next to the C++ ones."""
from . import _dmlkit
from ._cli import command
from ._registry import entries
from ._dmlkit import Step, Rng

run = command("influence", "run")


def algorithms():
    """The registered algorithms (built-in and Python) with their summaries and knobs."""
    return entries(_dmlkit.influence_algorithms())


class Algorithm:
    """Base of influence algorithms written in Python.

    ``reset(num_nodes, k)`` starts a run; ``select(step, rng)`` returns exactly ``step.k`` distinct
    node ids among ``step.present_nodes`` (NumPy, read-only); ``observe(step, seeds, marginal)``
    receives each seed's marginal reward. ``rng`` is the run's random stream (``rng.uniform()``,
    ``rng.uniform_int(lo, hi)``, ``rng.next()``): use it (not a global RNG) so that a seed gives
    the same run. Class attributes: ``name`` (default: the class name), ``summary``."""

    name = None
    summary = "an influence algorithm written in Python"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__ or cls.__dict__["name"] is None:
            cls.name = cls.__name__

    def reset(self, num_nodes, k):
        pass

    def select(self, step, rng):
        raise NotImplementedError(f"{type(self).__name__}.select")

    def observe(self, step, seeds, marginal):
        pass


def register(cls):
    """Registers an Algorithm subclass under ``cls.name`` (usable as a decorator)."""
    if not (isinstance(cls, type) and issubclass(cls, Algorithm)):
        raise TypeError("register() takes a dmlkit.influence.Algorithm subclass")
    _dmlkit.register_influence_algorithm(cls)
    return cls


__all__ = ["run", "algorithms", "Algorithm", "register", "Step", "Rng"]
