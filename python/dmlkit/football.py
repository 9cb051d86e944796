"""Football event detection and highlight segments from live text (``dmlkit football``): ``train``,
``evaluate``, ``segments``, ``tag``, ``cut``, ``spotting`` with the CLI's options as keyword
arguments, run in-process (src/football/run.h), and the registry of taggers (``taggers()``).

``train`` and ``evaluate`` return dmlkit.Results without writing anything unless ``out`` names a
folder (or ``results.write(path)`` is called); ``segments`` returns a :class:`Segments`."""
import json
import os

from . import _dmlkit, _inprocess
from ._cli import call
from ._dmlkit import Error
from ._registry import entries_from_list_json


def _list(value):
    if value is None:
        return []
    if isinstance(value, (str, os.PathLike)):
        return [str(v) for v in str(value).split(",") if v]
    return [str(v) for v in value]


def _params(value):
    if isinstance(value, dict):
        return [f"{k}={v}" for k, v in value.items()]
    return _list(value)


def _tagger(choice, options):
    for key in ("tagger", "model"):
        if options.get(key) is not None:
            setattr(choice, key, str(options.pop(key)))
    if options.get("tagger_param") is not None:
        choice.params = _params(options.pop("tagger_param"))
    options.pop("tagger_param", None)


def _fill(spec, command, options, lists=()):
    for key, value in options.items():
        if value is None:
            continue
        if not hasattr(spec, key) or key.startswith("_"):
            raise Error(f"football {command}: unknown option '{key}'")
        setattr(spec, key, _list(value) if key in lists else value)
    return spec


def train(out=None, format="table", **options):
    """`dmlkit football train` in-process: lines, tagger_param (training knobs), seed."""
    s = _dmlkit.FootballTrainSpec()
    if options.get("tagger_param") is not None:
        s.params = _params(options.pop("tagger_param"))
    _fill(s, "train", options, lists=("lines",))
    _inprocess.call(_dmlkit.football_check_train, s)
    return _inprocess.results(_inprocess.call(_dmlkit.football_train, s), out=out, format=format)


def evaluate(out=None, format="table", **options):
    """`dmlkit football evaluate` in-process: lines, tagger, model, tagger_param, lomo, seed,
    max_gap_s, padding."""
    s = _dmlkit.FootballEvaluateSpec()
    t = s.tagger
    _tagger(t, options)
    s.tagger = t
    _fill(s, "evaluate", options, lists=("lines",))
    _inprocess.call(_dmlkit.football_check_evaluate, s)
    return _inprocess.results(_inprocess.call(_dmlkit.football_evaluate, s), out=out, format=format)


class Segments:
    """The highlight segments of `football segments`: ``segments`` (segments.json as loaded),
    ``table`` (segments.csv as a Table), ``text`` (the printed summary), ``write(path)``."""

    def __init__(self, output):
        self._output = output
        self.segments = json.loads(output.segments_json())
        self.table = _inprocess._table(output.segments_csv())
        self.text = output.summary_text("table")
        self.path = None

    def write(self, path):
        self.path = self._output.write(os.fspath(path))
        return self.path

    def __str__(self):
        return self.text


def segments(out=None, **options):
    """`dmlkit football segments` in-process: lines, tagger, model, tagger_param, kickoffs, lag_s,
    max_gap_s, padding, events, events_format, search_s, min_confidence."""
    s = _dmlkit.FootballSegmentsSpec()
    t = s.tagger
    _tagger(t, options)
    s.tagger = t
    if options.get("kickoffs") is not None:
        k = options.pop("kickoffs")
        s.kickoffs = [float(v) for v in (k.split(",") if isinstance(k, str) else k)]
    _fill(s, "segments", {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in options.items()})
    _inprocess.call(_dmlkit.football_check_segments, s)
    result = Segments(_inprocess.call(_dmlkit.football_segments, s))
    if out is not None:
        result.write(out)
    return result


def tag(**options):
    """`dmlkit football tag` in-process: the tags of every line as a Table (minute, label,
    confidence, text)."""
    s = _dmlkit.FootballTagSpec()
    t = s.tagger
    _tagger(t, options)
    s.tagger = t
    _fill(s, "tag", {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in options.items()})
    return _inprocess._table(_inprocess.call(_dmlkit.football_tag, s))


def cut(out, **options):
    """`dmlkit football cut` in-process: video, segments, mode; writes the clips into ``out``.
    Returns the clips (the printed JSON) and sets nothing else."""
    s = _dmlkit.FootballCutSpec()
    _fill(s, "cut", {k: (os.fspath(v) if isinstance(v, os.PathLike) else v) for k, v in options.items()})
    text, _ = _inprocess.call(_dmlkit.football_cut, s, os.fspath(out))
    return json.loads(text)


def spotting(**options):
    """`dmlkit football spotting` in-process: labels, predictions, dictionary; returns the
    average-mAP figures as printed with --format json (a dict)."""
    s = _dmlkit.FootballSpottingSpec()
    _fill(s, "spotting", options, lists=("labels", "predictions"))
    return json.loads(_inprocess.call(_dmlkit.football_spotting, s))


def taggers():
    """The taggers (``dmlkit football taggers --format json``): name, summary, knobs; traits kind, notes."""
    return entries_from_list_json(call(["dmlkit", "football", "taggers", "--format", "json"]))


__all__ = ["train", "evaluate", "segments", "tag", "cut", "spotting", "taggers", "Segments"]
