"""Continual learning: ``angle_sweep``, ``replay``, ``sign_angle`` (``dmlkit continual ...``) run
in-process (src/continual/run.h) with the CLI's options as keyword arguments, and the registry of
replay strategies (``strategies()``). They return dmlkit.Results without writing anything unless
``out`` names a folder (or ``results.write(path)`` is called)."""
from . import _dmlkit, _inprocess
from ._dmlkit import Error
from ._registry import entries

# CLI option (as a keyword) -> the spec's attribute path, where the names differ.
_TRAINING = {"runs": "config.seeds", "repeats": "config.seeds", "seed": "config.seed", "epochs": "config.epochs",
             "lr": "config.learning_rate", "filters": "config.filters_per_class", "q": "config.power_q",
             "threads": "config.threads"}
_IMAGE = {**_TRAINING, "dataset": "data.dataset", "data_dir": "data.data_dir", "backend": "data.backend",
          "train_per_class": "config.train_per_class", "test_per_class": "config.test_per_class",
          "batch_size": "config.batch_size"}
_SWEEP = {**_TRAINING, "patch_len": "config.data.patch_len", "patches": "config.data.num_patches",
          "signal_norm": "config.data.signal_norm", "noise_std": "config.data.noise_std",
          "noise_orthogonal": "config.data.noise_orthogonal", "train_per_task": "config.data.train_per_task",
          "test_per_task": "config.data.test_per_task", "replay_fraction": "config.replay_fraction",
          "ewc_lambda": "config.ewc_lambda", "harmful_error": "config.harmful_error",
          "chunk_models": "config.chunk_models"}
_REPLAY = {**_IMAGE, "strategies": "config.strategies", "buffer_sizes": "config.buffer_sizes", "tasks": "config.tasks",
           "cnn_conv1": "config.cnn_conv1_channels", "cnn_conv2": "config.cnn_conv2_channels",
           "cnn_kernel": "config.cnn_kernel", "cnn_features": "config.cnn_feature_dim",
           "cnn_lr": "config.cnn_learning_rate", "cnn_batch_size": "config.cnn_batch_size",
           "cnn_momentum": "config.cnn_momentum"}
_SIGN = {**_IMAGE, "replay_sizes": "config.replay_sizes", "flip_new_task": "config.flip_new_task"}
_LISTS = {"variants", "task_classes", "pairs", "config.strategies", "config.buffer_sizes", "config.replay_sizes"}
_NUMBERS = {"config.buffer_sizes": int, "config.replay_sizes": int}


def _fill(spec, command, names, options):
    for key, value in options.items():
        if value is None:
            continue
        path = names.get(key, key)
        *parents, leaf = path.split(".")
        target = spec
        try:
            for p in parents:
                target = getattr(target, p)
            if not hasattr(target, leaf) or leaf.startswith("_"):
                raise AttributeError(leaf)
        except AttributeError:
            raise Error(f"continual {command}: unknown option '{key}'") from None
        if path in _LISTS:
            value = value.split(",") if isinstance(value, str) else list(value)
            if path in _NUMBERS:
                value = [_NUMBERS[path](v) for v in value]
            else:
                value = [str(v) for v in value]
        setattr(target, leaf, value)
    return spec


def _run(spec, function, out, format):
    return _inprocess.results(_inprocess.call(function, spec), out=out, format=format)


def angle_sweep(out=None, format="table", **options):
    """`dmlkit continual angle-sweep` in-process (continual::AngleSweepSpec)."""
    s = _fill(_dmlkit.AngleSweepSpec(), "angle-sweep", _SWEEP, options)
    return _run(s, _dmlkit.continual_angle_sweep, out, format)


def replay(out=None, format="table", **options):
    """`dmlkit continual replay` in-process (continual::ReplaySpec)."""
    s = _fill(_dmlkit.ReplaySpec(), "replay", _REPLAY, options)
    return _run(s, _dmlkit.continual_replay, out, format)


def sign_angle(out=None, format="table", **options):
    """`dmlkit continual sign-angle` in-process (continual::SignAngleSpec)."""
    s = _fill(_dmlkit.SignAngleSpec(), "sign-angle", _SIGN, options)
    return _run(s, _dmlkit.continual_sign_angle, out, format)


def strategies():
    return entries(_dmlkit.replay_strategies())


__all__ = ["angle_sweep", "replay", "sign_angle", "strategies"]
