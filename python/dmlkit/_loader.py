"""FILE.py:CLASS -> the class (the CLI's --policy-file and --algorithm-file)."""
import importlib.util
import inspect
import os
import sys

from ._dmlkit import Error

_modules = {}


def load_class(spec, kind):
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise Error(f"{spec}: expected FILE.py:CLASS")
    if not os.path.isfile(path):
        raise Error(f"{path}: no such file")
    full = os.path.abspath(path)
    module = _modules.get(full)
    if module is None:
        folder = os.path.dirname(full)
        if folder not in sys.path:
            sys.path.insert(0, folder)  # the file may import its neighbours
        stem = os.path.splitext(os.path.basename(full))[0]
        mod_spec = importlib.util.spec_from_file_location(f"dmlkit_user_{stem}", full)
        module = importlib.util.module_from_spec(mod_spec)
        mod_spec.loader.exec_module(module)
        _modules[full] = module
    if kind == "policy":
        from .cluster import Policy as base
    else:
        from .influence import Algorithm as base
    cls = getattr(module, name, None)
    if cls is None:
        known = sorted(n for n, v in vars(module).items()
                       if inspect.isclass(v) and issubclass(v, base) and v is not base)
        raise Error(f"{path}: no class '{name}' (classes there: {', '.join(known) or 'none'})")
    if not (inspect.isclass(cls) and issubclass(cls, base)):
        raise Error(f"{path}: '{name}' is not a subclass of dmlkit.{base.__module__.split('.')[-1]}.{base.__name__}")
    return cls
