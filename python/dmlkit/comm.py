"""Communication scheduling of one training job (SimGrid): ``simulate``, ``compare``, ``tune``
and the registry (``schedulers()``). The functions take the options of ``dmlkit comm ...`` as
keyword arguments (``--partition-mb`` -> ``partition_mb``; ``scheduler_param={'p3.credit-mb': 1}``
for any knob of ``comm schedulers -v``), build the run entry's spec (src/comm/run.h) and run it in
this process: nothing is written unless ``out=`` is given (or ``results.write(path)`` is called)."""
from . import _dmlkit
from ._registry import entries
from ._run import finish, knob_values, refuse_unknown, set_fields

# Keyword option -> field of comm::TrainingSpec (the options every comm and ps command takes).
TRAINING_FIELDS = {name: name for name in (
    "model", "tensors", "arch", "workers", "servers", "bandwidth", "latency_us", "switch_bandwidth", "racks",
    "uplink_bandwidth", "op_overhead_us", "ring_stepwise", "compute_scale", "batch", "iterations", "warmup",
    "data_dir", "graph_dir", "seed")}
TRAINING_FIELDS.update({"slow_worker": "slow_workers", "slow_workers": "slow_workers", "slow_link": "slow_links",
                        "slow_links": "slow_links"})

# The shared knob options (bare knob keys, comm/scheduler.h) and the value that means "not given".
_SHARED_KNOBS = {"partition_mb": None, "credit_mb": None, "credit_mode": "any", "fusion_mb": None,
                 "cycle_ms": None, "bucket_mib": 25, "first_bucket_mib": 1}


def _as_list(value):
    return [value] if isinstance(value, str) else list(value)


def _scheduler_params(options):
    params = {}
    for option, unset in _SHARED_KNOBS.items():
        value = options.pop(option, unset)
        if value is not None and value != unset:
            params[option.replace("_", "-")] = value if isinstance(value, str) else repr(float(value))
    params.update(knob_values(options.pop("scheduler_param", None)))
    return params


def _run(command, options):
    options = dict(options)
    out, fmt = options.pop("out", None), options.pop("format", "table")
    spec = _dmlkit.CommRunSpec()
    spec.command = "comm " + command
    if command == "simulate":
        spec.schedulers = [options.pop("scheduler", "bytescheduler")]
    elif "schedulers" in options:
        spec.schedulers = _as_list(options.pop("schedulers"))
    for key in ("slow_worker", "slow_link", "slow_workers", "slow_links"):
        if key in options:
            options[key] = _as_list(options[key])
    spec.scheduler_params = _scheduler_params(options)
    left = set_fields(spec, options, TRAINING_FIELDS)
    refuse_unknown("comm " + command, left)
    return finish(_dmlkit.comm_run(spec), out, fmt)


def simulate(**options):
    """`dmlkit comm simulate` in-process: one scheduler (``scheduler=``). Returns dmlkit.Results."""
    return _run("simulate", options)


def compare(**options):
    """`dmlkit comm compare` in-process: ``schedulers=[...]`` (default: all that support ``arch``)."""
    return _run("compare", options)


def tune(**options):
    """`dmlkit comm tune` in-process: ``scheduler=``, ``probes=``, ``initial=``, ``grid=``, ``credit_mode=``."""
    options = dict(options)
    out, fmt = options.pop("out", None), options.pop("format", "table")
    spec = _dmlkit.CommTuneSpec()
    mode = options.pop("credit_mode", "any")
    spec.scheduler_params = {} if mode == "any" else {"credit-mode": mode}
    left = set_fields(spec, options, {**TRAINING_FIELDS, "scheduler": "scheduler", "probes": "probes",
                                      "initial": "initial", "grid": "grid"})
    refuse_unknown("comm tune", left)
    return finish(_dmlkit.comm_tune(spec), out, fmt)


def schedulers():
    return entries(_dmlkit.comm_schedulers())


__all__ = ["simulate", "compare", "tune", "schedulers"]
