"""Online influence maximization: ``run`` (``dmlkit influence run``), the registry
(``algorithms()``) and algorithms written in Python.

A Python algorithm subclasses :class:`Algorithm` and picks k seeds per step from what a bandit sees
(the present nodes and its own feedback); ``run(algorithms=[MyBandit, "rsb"], ...)`` or
``dmlkit influence run --algorithm-file FILE.py:CLASS`` runs it next to the C++ ones."""
import inspect

from . import _dmlkit, _inprocess
from ._dmlkit import Error, Rng, Step
from ._registry import entries

# Keyword arguments that are not RunSpec fields of the same name.
_RENAMED = {"repeats": "runs"}


def _names(value):
    if isinstance(value, str):
        return [v for v in value.split(",") if v]
    return list(value) if isinstance(value, (list, tuple)) else [value]


def spec(**options):
    """An InfluenceRunSpec (src/influence/run.h) from the CLI's options as keyword arguments:
    ``graph``, ``k``, ``steps``, ``runs``, ``seed``, ``algorithms`` (names or Algorithm subclasses,
    which are registered), ``algorithm_param={"rsb.gamma": 0.3}``, the first release's knob options
    (``gamma``, ``rsb_c``, ``oracle_epsilon``, ``static_epsilon``, ``max_rr_sets``, ``cucb_alpha``,
    ``epsilon``), ``algorithm_file`` (FILE.py:CLASS, repeatable), ``no_best_fixed``, and every other
    field of the spec by name (``edge_churn``, ``fr_max``, ...)."""
    s = _dmlkit.InfluenceRunSpec()
    named = {option.replace("-", "_"): knob for option, knob in _dmlkit.influence_named_knobs}
    params = {}
    extra = []
    for key, value in options.items():
        if value is None:
            continue
        key = _RENAMED.get(key, key)
        if key == "algorithms":
            s.algorithms = [_register_value(v) for v in _names(value)]
        elif key == "algorithm_file":
            from ._loader import load_class
            extra += [register(load_class(f, "algorithm")).name for f in _names(value)]
        elif key == "algorithm_param":
            params.update({k: _text(v) for k, v in dict(value).items()})
        elif key in named:
            params[named[key]] = _text(value)
        elif key == "no_best_fixed":
            s.best_fixed = not value
        elif key == "trivalency_levels":
            s.trivalency_levels = [float(v) for v in _names(value)]
        elif key != "format" and hasattr(s, key) and not key.startswith("_"):
            setattr(s, key, value)
        else:
            raise Error(f"influence run: unknown option '{key}'")
    s.algorithms = s.algorithms + [n for n in extra if n not in s.algorithms]
    p = dict(s.algorithm_params)
    p.update(params)
    s.algorithm_params = p
    return s


def run(out=None, format="table", **options):
    """Runs `dmlkit influence run` in-process (influence::run, src/influence/run.h): keyword
    arguments as spec() takes them. Returns dmlkit.Results; nothing is written unless ``out``
    names a folder (or ``results.write(path)`` is called)."""
    s = spec(**options)
    _inprocess.call(_dmlkit.influence_check, s)
    return _inprocess.results(_inprocess.call(_dmlkit.influence_run, s), out=out, format=format)


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _register_value(value):
    if inspect.isclass(value) and issubclass(value, Algorithm):
        register(value)
        return value.name
    return value


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


__all__ = ["run", "spec", "algorithms", "Algorithm", "register", "Step", "Rng"]
