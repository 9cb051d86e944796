"""Registry listings (core/registry.h) as Python objects, and knob declarations of Python classes."""
from dataclasses import dataclass, field
from typing import List, Optional


@dataclass
class Knob:
    """A declared knob. In a Python policy: ``knobs = [Knob("mine.alpha", 0.5, "what it does", min=0, max=1)]``;
    the type follows the default (bool, int, float, str; `choices` makes an enum)."""
    name: str
    default: object
    help: str = ""
    min: Optional[float] = None
    max: Optional[float] = None
    choices: List[str] = field(default_factory=list)
    type: str = ""      # int, double, bool, string, enum (inferred when empty)
    range: str = ""     # as `list -v` prints it (listings only)

    def __post_init__(self):
        if not self.type:
            d = self.default
            self.type = ("enum" if self.choices else "bool" if isinstance(d, bool) else
                         "int" if isinstance(d, int) else "double" if isinstance(d, float) else "string")


@dataclass
class Entry:
    """A registry entry: name, one-line summary, knobs, and family traits (e.g. gpu_jobs, ps_jobs)."""
    name: str
    summary: str
    knobs: List[Knob]
    python: bool = False  # registered from Python
    traits: dict = field(default_factory=dict)

    def __str__(self):
        lines = [f"{self.name}\t{self.summary}"]
        lines += [f"\t{k.name}\t{k.range}\tdefault {k.default}\t{k.help}" for k in self.knobs]
        return "\n".join(lines)


def entries(raw):
    out = []
    for d in raw:
        d = dict(d)
        knobs = [Knob(name=k["name"], default=k["default"], help=k["help"], choices=list(k["choices"]),
                      type=k["type"], range=k["range"]) for k in d.pop("knobs")]
        out.append(Entry(name=d.pop("name"), summary=d.pop("summary"), knobs=knobs,
                         python=d.pop("python"), traits=d))
    return out


def entries_from_list_json(text):
    """Entries from a list command's ``--format json`` (core/registry.h print_json): name, summary,
    knobs (name, type, default, help) and every other key as a trait (kind, role, notes, ...)."""
    import json
    out = []
    for d in json.loads(text):
        d = dict(d)
        knobs = [Knob(name=k["name"], default=k["default"], help=k["help"], type=k["type"].split(" ")[0],
                      range=k["type"]) for k in d.pop("knobs")]
        out.append(Entry(name=d.pop("name"), summary=d.pop("summary"), knobs=knobs, traits=d))
    return out
