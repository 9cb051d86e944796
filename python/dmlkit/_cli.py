"""The CLI in-process: a command function builds the argument vector the CLI would get from its
keyword arguments, runs it (dmlkit._dmlkit.run_cli, the same parser, checks and writers) into an
output folder and loads the folder's results.json. Adding a family's command is one line:
``replay = command("continual", "replay")``."""
import inspect
import os
import tempfile

from . import _dmlkit
from ._dmlkit import Error
from .results import Results


def _flag(key):
    return "--" + key.replace("_", "-")


def _register(value):
    """A Policy or Algorithm subclass given as a value: registered, replaced by its name."""
    if inspect.isclass(value):
        from .cluster import Policy
        from .influence import Algorithm
        if issubclass(value, Policy):
            from .cluster import register
            register(value)
            return value.name
        if issubclass(value, Algorithm):
            from .influence import register
            register(value)
            return value.name
    return value


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def to_argv(words, options):
    """The CLI's argument vector for `words` (the subcommand) and keyword options."""
    argv = ["dmlkit", *words]
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = _flag(key)
        if value is True:
            argv.append(flag)
        elif isinstance(value, dict):  # policy_param={'tiresias.queues': 2}
            for k, v in value.items():
                argv += [flag, f"{k}={_text(v)}"]
        elif isinstance(value, (list, tuple)):  # the flag once per item (the CLI appends)
            for v in value:
                argv += [flag, _text(_register(v))]
        else:
            argv += [flag, _text(_register(value))]
    return argv


def call(argv):
    """Runs the CLI; returns its printed output, raises Error (the CLI's one-line message) on failure."""
    _dmlkit.take_last_python_exception()  # forget one from an earlier run
    code, out, err = _dmlkit.run_cli(argv)
    if code != 0:
        message = err.strip().splitlines()[-1] if err.strip() else f"exit status {code}"
        if message.startswith("dmlkit: "):
            message = message[len("dmlkit: "):]
        cause = _dmlkit.take_last_python_exception()
        error = Error(message)
        if cause is not None:
            raise error from cause
        raise error
    return out


def run_command(words, options):
    options = dict(options)
    out = options.pop("out", None)
    tmp = None
    if out is None:
        tmp = tempfile.mkdtemp(prefix="dmlkit-")
        out = os.path.join(tmp, "out")
    try:
        text = call(to_argv(words, options) + ["--out", str(out)])
    except BaseException:
        if tmp:
            import shutil
            shutil.rmtree(tmp, ignore_errors=True)
        raise
    return Results.load(out, text=text, temporary=tmp)


def help_text(words):
    try:
        return call(["dmlkit", *words, "--help"])
    except Error:
        return ""


def command(*words):
    """A function running `dmlkit <words...>` with the CLI's options as keyword arguments."""
    def run(**options):
        return run_command(list(words), options)
    run.__name__ = words[-1].replace("-", "_")
    run.__qualname__ = run.__name__
    run.__doc__ = (f"Runs `dmlkit {' '.join(words)}`: keyword arguments are its options "
                   "(--policy-param -> policy_param; lists join with commas, dicts repeat key=value, "
                   "True gives a flag; out=None writes a temporary folder). Returns dmlkit.Results.\n\n"
                   + help_text(list(words)))
    return run
