"""Distributed GNN training: task placement and transfer scheduling (``dmlkit gnn``): ``compare``
with the CLI's options as keyword arguments (the run entry of src/gnn/compare.h in-process, nothing
written unless ``out=``), and the placement and scheduling policies (``policies()``, each with its
``role``)."""
from . import _dmlkit
from ._cli import call
from ._registry import entries_from_list_json
from ._run import finish, knob_values, refuse_unknown, set_fields

# Keyword option (as the CLI names it) -> field of gnn::CompareOptions.
_FIELDS = {
    "graph": "graph", "graph_format": "graph_format", "max_nodes": "max_nodes", "partitions": "partitions",
    "partitioner": "partitioner", "machines": "cluster.machines", "devices": "cluster.devices",
    "gpus_per_machine": "cluster.gpus_per_machine", "cores": "cluster.cores", "memory_GB": "cluster.memory_GB",
    "racks": "cluster.racks", "store_machines": "cluster.store_machines", "speed_model": "cluster.speed_model",
    "fanouts": "sampler.fanouts", "batch": "sampler.batch", "train_fraction": "sampler.train_fraction",
    "feature_dim": "job.feature_dim", "bytes_per_feature": "job.bytes_per_feature", "hidden": "job.hidden",
    "classes": "job.classes", "v100_TFLOPS": "job.v100_TFLOPS", "sampler_threads": "job.sampler_threads",
    "trainer_cores": "job.trainer_cores", "trainers_per_partition": "job.trainers_per_partition",
    "sync": "job.sync", "ps_servers": "job.ps_servers", "prefetch": "job.prefetch", "epochs": "epochs",
    "sim_iterations": "sim_iterations", "warmup": "warmup", "cooldown": "cooldown",
    "gantt_iterations": "gantt_iterations", "placements": "placements", "schedulers": "schedulers",
    "seed": "seed", "threads": "threads", "data_dir": "data_dir",
}


def _index_fraction(text, flag):
    i, sep, f = str(text).partition(":")
    try:
        return (int(i), float(f))
    except ValueError:
        raise _dmlkit.Error(f"field '{flag}': expected I:F, got '{text}'") from None


def compare(**options):
    """`dmlkit gnn compare` in-process. Returns dmlkit.Results."""
    options = dict(options)
    out, fmt = options.pop("out", None), options.pop("format", "table")
    spec = _dmlkit.GnnCompareSpec()
    for key in ("placements", "schedulers", "fanouts", "store_machines"):
        if isinstance(options.get(key), str):
            options[key] = options[key].split(",")
    if "fanouts" in options:
        options["fanouts"] = [int(f) for f in options["fanouts"]]
    if "store_machines" in options:
        options["store_machines"] = [int(f) for f in options["store_machines"]]
    # The CLI's units into the spec's (bytes/s, seconds).
    spec.cluster.nic_Bps = _dmlkit.parse_bandwidth(options.pop("bandwidth", "10Gbps"), "bandwidth")
    uplink = options.pop("uplink_bandwidth", None)
    if uplink:
        spec.cluster.uplink_Bps = _dmlkit.parse_bandwidth(uplink, "uplink-bandwidth")
    spec.cluster.latency_s = float(options.pop("latency_us", 5)) * 1e-6
    slow = options.pop("slow_nic", [])
    spec.cluster.slow_nics = [_index_fraction(s, "slow-nic") for s in ([slow] if isinstance(slow, str) else slow)]
    spec.job.overhead_s = float(options.pop("overhead_ms", 2)) * 1e-3
    spec.job.pcie_Bps = float(options.pop("pcie_GBps", 12)) * 1e9
    spec.job.sample_s_per_edge = float(options.pop("sample_us_per_edge", 0.2)) * 1e-6
    spec.placement_params = knob_values(options.pop("placement_param", None))
    spec.scheduler_params = knob_values(options.pop("scheduler_param", None))
    spec.partitioner_params = knob_values(options.pop("partitioner_param", None))
    left = set_fields(spec, options, _FIELDS)
    refuse_unknown("gnn compare", left)
    return finish(_dmlkit.gnn_compare(spec), out, fmt)


def policies():
    """Placements and schedulers (``dmlkit gnn list --format json``); traits["role"] tells which."""
    return entries_from_list_json(call(["dmlkit", "gnn", "list", "--format", "json"]))


__all__ = ["compare", "policies"]
