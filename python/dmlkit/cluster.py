"""Cluster scheduling: ``simulate``, ``compare`` (also experiment presets: ``compare(experiment=...)``
or ``experiment(name)``), the registry (``policies()``), and policies written in Python.

A Python policy subclasses :class:`Policy` and implements ``schedule(view, jobs)``; the simulator
(and ``dmlkit cluster serve --slurm --policy-file FILE.py:CLASS``) calls it through the seam of the
C++ policies (src/cluster/policy.h)::

    class Fifo(dmlkit.cluster.Policy):
        name = "py-fifo"
        def schedule(self, view, jobs):
            if view.jobs_unchanged:
                return None                      # no change
            free = dmlkit.cluster.FreeGpus(view)
            started = {}
            for i in jobs.iter_waiting():               # arrival order
                p = free.place(jobs[i].num_gpus, self.options.placement)
                if p is None:
                    break
                started[i] = p                   # {job index: placement}
            return started

    dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=Fifo)
"""
import difflib
import json

from . import _dmlkit
from ._cli import help_text, to_argv, _register, _text
from ._dmlkit import Error
from ._registry import Knob, entries
from ._dmlkit import Placement, FreeGpus, PolicyOptions, ClusterView, Jobs, Job
from .results import Results

# keyword (the CLI's flag, - as _) -> (field of cluster/run.h's RunSpec, type)
_RUN_FIELDS = {
    "workload": ("workload", str), "cluster": ("cluster", str), "profile": ("profile", str),
    "placement": ("placement", str), "round": ("round_s", float), "restart_delay": ("restart_delay_s", float),
    "free_first_start": ("free_first_start", bool), "extra_server_slowdown": ("extra_server_slowdown", float),
    "interference": ("interference", str), "interference_file": ("interference_file", str),
    "drop_oversized": ("drop_oversized", bool), "window_start": ("window_start_s", float),
    "window_end": ("window_end_s", float), "vc": ("virtual_clusters", list), "synthetic_jobs": ("synthetic_jobs", int),
    "jobs": ("max_jobs", int), "calibration": ("calibration", str),
    "calibration_time_scale": ("calibration_time_scale", float),
    "calibration_statistic": ("calibration_statistic", str), "seed": ("seed", int), "data_dir": ("data_dir", str),
}
_COMMON = {"policy_param", "policy_file", "no_event_replan", "out", "format"}
_SIMULATE = set(_RUN_FIELDS) | _COMMON | {"policy", "trace"}
_COMPARE = set(_RUN_FIELDS) | _COMMON | {"policies", "threads", "experiment", "seeds", "experiments_dir"}
# What compare(experiment=...) takes; any other option is an error, as on the command line.
_EXPERIMENT = {"experiment", "experiments_dir", "policies", "seeds", "seed", "policy_param", "policy_file", "out",
               "format", "data_dir", "threads", "interference", "interference_file"}


def _check_keywords(command, options, known):
    for key in options:
        if key not in known:
            flags = sorted("--" + k.replace("_", "-") for k in known)
            flag = "--" + key.replace("_", "-")
            close = difflib.get_close_matches(flag, flags, n=1)
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            raise Error(f"unknown option '{flag}' for dmlkit {command}{hint} (see dmlkit {command} --help)")


def _convert(key, value, kind):
    flag = "--" + key.replace("_", "-")
    try:
        if kind is list:
            return value.split(",") if isinstance(value, str) else [_text(v) for v in value]
        if kind is bool:
            return bool(value)
        if kind is int:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
        return kind(value)
    except (TypeError, ValueError):
        raise Error(f"{flag}: cannot read {value!r} as {'a number' if kind in (int, float) else kind.__name__}") from None


def _names(value):
    """Policy names from a name, a comma-separated string, a Policy class or a list of them."""
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, (list, tuple)) else [value]
    return [_text(_register(v)) for v in items]


def _params(value):
    """policy_param={'tiresias.queues': 2} or ['tiresias.queues=2'] -> ['key=value', ...]."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [f"{k}={_text(v)}" for k, v in value.items()]
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _policy_files(value):
    from ._loader import load_class
    if not value:
        return []
    specs = [value] if isinstance(value, str) else list(value)
    return [_register(load_class(str(s), "policy")) for s in specs]


def _add_missing(names, extra):
    return names + [n for n in extra if n not in names]


def _run(command, handle, options, text_after=""):
    """The in-process run's Results; with out=, also its output folder, as the CLI writes it."""
    fmt = options.get("format") or "table"
    if fmt not in ("table", "json", "csv"):
        raise Error(f"--format: {fmt} not in {{table,json,csv}}")
    text = handle.summary(fmt)
    raw = json.loads(handle.results_json())
    out = options.get("out")
    if out is None:
        return Results(raw, None, text + text_after, files=handle.file)
    path = handle.write(str(out), to_argv(command.split(), options))
    if fmt == "table":
        text += f"\nresults: {path}/results.json\nreport:  {path}/report.html\n"
    return Results.load(path, text=text + text_after)


def _call(fn, *args):
    _dmlkit.take_last_python_exception()  # forget one from an earlier run
    try:
        return fn(*args)
    except Error as error:
        cause = _dmlkit.take_last_python_exception()
        if cause is not None:
            raise Error(str(error)) from cause
        raise


def _run_spec(command, options, policies):
    spec = _dmlkit.ClusterRunSpec()
    spec.command = command
    for key, value in options.items():
        if key in _RUN_FIELDS and value is not None:
            field, kind = _RUN_FIELDS[key]
            setattr(spec, field, _convert(key, value, kind))
    spec.policies = policies
    spec.policy_params = _params(options.get("policy_param"))
    spec.event_replan = not options.get("no_event_replan", False)
    spec.threads = _convert("threads", options.get("threads") or 0, int)
    spec.record_placements = bool(options.get("trace"))
    return spec


def _workload_run(command, options, policies):
    fmt = options.get("format") or "table"
    spec = _run_spec(command, options, policies)
    handle = _call(_dmlkit.cluster_run, spec)
    after = ""
    if options.get("trace"):
        where = handle.write_trace(str(options["trace"]))
        after = f"trace:   {where}\n" if fmt == "table" else ""
    return _run(command, handle, options, after)


def simulate(**options):
    """Runs one policy on a workload in-process (cluster/run.h; `dmlkit cluster simulate`).
    Keyword arguments are the command's options (--policy-param -> policy_param={"k": v};
    lists or comma-separated strings; True gives a flag; a Policy class as policy=). Writes
    nothing unless out= names a folder. Returns dmlkit.Results."""
    _check_keywords("cluster simulate", options, _SIMULATE)
    names = _names(options.get("policy", "fifo"))
    files = _policy_files(options.get("policy_file"))  # registered; run when --policy is not given
    if files and options.get("policy") is None:
        if len(files) != 1:
            raise Error("--policy-file: `cluster simulate` runs one policy; name it with --policy")
        names = files
    return _workload_run("cluster simulate", options, names)


def compare(**options):
    """Runs several policies on the same workload in-process (`dmlkit cluster compare`), or an
    experiment preset over its seeds with experiment=NAME. Keyword arguments as simulate's;
    policies=[...] (names or Policy classes). Returns dmlkit.Results."""
    _check_keywords("cluster compare", options, _COMPARE)
    if options.get("experiment"):
        return _experiment_run(options)
    if options.get("seeds"):
        raise Error("--seeds: needs --experiment (a preset averages over seeds); one workload runs one --seed, and a "
                    "sweep over seeds is `dmlkit sweep`")
    names = _names(options.get("policies") or ["fifo", "srtf", "drf", "tetris", "tiresias"])
    names = _add_missing(names, _policy_files(options.get("policy_file")))  # Python policies run too
    return _workload_run("cluster compare", options, names)


def _experiment_run(options):
    for key, value in options.items():
        if key not in _EXPERIMENT and value is not None and value is not False:
            raise Error(f"--{key.replace('_', '-')}: has no effect with --experiment (the preset sets it: edit a copy "
                        "of the preset, or drop --experiment)")
    spec = _dmlkit.ClusterExperimentSpec()
    spec.experiment = str(options["experiment"])
    if options.get("experiments_dir"):
        spec.experiments_dir = str(options["experiments_dir"])
    if options.get("policies") is not None:
        spec.policies = _names(options["policies"])
    seeds = options.get("seeds")
    if seeds is not None:
        spec.seeds = [_convert("seeds", s, int) for s in (seeds.split(",") if isinstance(seeds, str) else seeds)]
    elif options.get("seed") is not None:
        spec.seeds = [_convert("seed", options["seed"], int)]
    spec.policy_params = _params(options.get("policy_param"))
    spec.extra_policies = _policy_files(options.get("policy_file"))
    for key in ("interference", "interference_file", "data_dir"):
        if options.get(key):
            setattr(spec, key, str(options[key]))
    spec.threads = _convert("threads", options.get("threads") or 0, int)
    handle = _call(_dmlkit.cluster_experiment_run, spec)
    return _run("cluster compare", handle, options)


simulate.__doc__ += "\n\n" + help_text(["cluster", "simulate"])
compare.__doc__ += "\n\n" + help_text(["cluster", "compare"])


def experiment(name, **options):
    """Runs an experiment preset (``dmlkit cluster compare --experiment NAME``)."""
    return compare(experiment=name, **options)


def experiments(dir=None):
    """The experiment presets (``dmlkit cluster experiments -v``): a list of dicts (name,
    description, path, engine, cluster, policies, seeds, policy_params, speed_model, round_s,
    restart_delay_s)."""
    return _dmlkit.cluster_experiments(str(dir) if dir else "")


def policies(engine="sim"):
    """The registered policies (built-in and Python) with their summaries, knobs and traits;
    engine="oasis": the methods of the OASiS model."""
    return entries(_dmlkit.oasis_methods() if engine == "oasis" else _dmlkit.cluster_policies())


class Policy:
    """Base of cluster policies written in Python.

    Class attributes: ``name`` (registry name; default: the class name), ``summary``, ``knobs``
    (a list of :class:`dmlkit.Knob`, set with ``policy_param={"name.key": value}`` /
    ``--policy-param``), ``ps_jobs`` (schedules parameter-server jobs), ``charges_restarts``,
    ``ps_assignment``. ``self.options`` (a PolicyOptions: profile, placement, seed, knobs) is set
    before the first call.

    ``schedule(view, jobs)`` returns None (nothing changes), a dict {job index: placement} (only
    these change) or a list with one placement per job; a placement is a :class:`Placement`, a list
    of (server, gpus) tuples, or [] / None (not running). Define ``next_wakeup_s(view, jobs)`` to be
    called again at a time of your choosing (absolute seconds; None: no wake-up)."""

    name = None
    summary = "a policy written in Python"
    knobs = []
    ps_jobs = False
    charges_restarts = True
    ps_assignment = "mxnet"
    next_wakeup_s = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__ or cls.__dict__["name"] is None:
            cls.name = cls.__name__

    def __init__(self, options=None):
        self.options = options

    def schedule(self, view, jobs):
        raise NotImplementedError(f"{type(self).__name__}.schedule")


def register(cls):
    """Registers a Policy subclass under ``cls.name`` (usable as a decorator). A class passed as
    ``policy=`` / ``policies=[...]`` is registered automatically."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise TypeError("register() takes a dmlkit.cluster.Policy subclass")
    _dmlkit.register_cluster_policy(cls)
    return cls


__all__ = ["simulate", "compare", "experiment", "experiments", "policies", "Policy", "register", "Knob",
           "Placement", "FreeGpus", "PolicyOptions", "ClusterView", "Jobs", "Job"]
