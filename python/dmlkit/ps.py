"""Parameter-server load distribution under stragglers: ``compare`` (``dmlkit ps compare``
in-process: its options as keyword arguments, ``policy_param={'psld.ewma_alpha': 0.5}``; the run
entry of src/ps/compare.h, nothing written unless ``out=``) and the registry of assignment policies
(``policies()``)."""
from . import _dmlkit
from ._registry import entries
from ._run import finish, knob_values, refuse_unknown, set_fields
from .comm import TRAINING_FIELDS


def compare(**options):
    """`dmlkit ps compare` in-process. Returns dmlkit.Results."""
    options = dict(options)
    out, fmt = options.pop("out", None), options.pop("format", "table")
    spec = _dmlkit.PsCompareSpec()
    if "policies" in options:
        p = options.pop("policies")
        spec.policies = [p] if isinstance(p, str) else list(p)
    spec.policy_params = knob_values(options.pop("policy_param", None))
    for key in ("slow_worker", "slow_link"):
        if isinstance(options.get(key), str):
            options[key] = [options[key]]
    left = set_fields(spec, options, {**TRAINING_FIELDS, "stragglers": "stragglers", "server_GBps": "server_GBps"})
    refuse_unknown("ps compare", left)
    return finish(_dmlkit.ps_compare(spec), out, fmt)


def policies():
    return entries(_dmlkit.ps_policies())


__all__ = ["compare", "policies"]
