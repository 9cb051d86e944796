"""Football event detection and highlight segments from live text (``dmlkit football``): ``train``,
``evaluate``, ``segments``, ``cut``, ``spotting`` with the CLI's options as keyword arguments, and
the registry of taggers (``taggers()``)."""
from ._cli import call, command
from ._registry import entries_from_list_json

train = command("football", "train")
evaluate = command("football", "evaluate")
segments = command("football", "segments")
cut = command("football", "cut")
spotting = command("football", "spotting")


def taggers():
    """The taggers (``dmlkit football taggers --format json``): name, summary, knobs; traits kind, notes."""
    return entries_from_list_json(call(["dmlkit", "football", "taggers", "--format", "json"]))


__all__ = ["train", "evaluate", "segments", "cut", "spotting", "taggers"]
