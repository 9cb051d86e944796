"""Football event detection and highlight segments from live text (``dmlkit football``): ``train``,
``evaluate``, ``segments``, ``cut``, ``spotting`` with the CLI's options as keyword arguments, and
the registry of taggers (``taggers()``)."""
import json

from ._cli import call, command
from ._registry import Entry, Knob

train = command("football", "train")
evaluate = command("football", "evaluate")
segments = command("football", "segments")
cut = command("football", "cut")
spotting = command("football", "spotting")


def taggers():
    """The taggers (``dmlkit football taggers --format json``): name, summary, knobs."""
    out = []
    for e in json.loads(call(["dmlkit", "football", "taggers", "--format", "json"])):
        knobs = [Knob(name=k["name"], default=k["default"], help=k["help"], type=k["type"].split(" ")[0],
                      range=k["type"]) for k in e["knobs"]]
        out.append(Entry(name=e["name"], summary=e["summary"], knobs=knobs,
                         traits={"kind": e.get("kind", ""), "notes": e.get("notes", [])}))
    return out


__all__ = ["train", "evaluate", "segments", "cut", "spotting", "taggers"]
