"""Results of a run entry called in-process (src/<family>/run.h): the C++ output object gives
results.json's text, its CSV tables as text, the printed summary, and ``write(path)``. Without
``out`` nothing touches the file system: the tables are parsed from memory. With ``out`` the
folder is written (the same files the CLI writes) and the Results point at it."""
import csv
import io
import json
import os

from . import _dmlkit
from ._dmlkit import Error
from .results import Results, Table, _column


def _table(text):
    rows = list(csv.reader(io.StringIO(text)))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    return Table({name: _column([r[i] if i < len(r) else "" for r in body]) for i, name in enumerate(header)})


class InMemoryResults(Results):
    """Results whose tables come from memory (``path`` is None until ``write(path)``)."""

    def __init__(self, raw, text, tables, output):
        super().__init__(raw, None, text)
        self._csv = tables
        self._output = output

    def table(self, name):
        if self.path is not None:
            return Results.table(self, name)
        if name not in self._csv:
            raise KeyError(f"no table '{name}' (tables: {', '.join(self._csv)})")
        return _table(self._csv[name])

    def write(self, path):
        """Writes the output folder (results.json, CSV tables, report); returns its path."""
        self.path = self._output.write(str(path))
        return self.path


def call(function, *args):
    """Calls a binding; an exception raised by Python code inside it becomes the Error's cause."""
    _dmlkit.take_last_python_exception()  # forget one from an earlier run
    try:
        return function(*args)
    except Error as error:
        cause = _dmlkit.take_last_python_exception()
        if cause is not None:
            raise error from cause
        raise


def results(output, out=None, format="table"):
    """dmlkit.Results of a run output; ``out``: also write the folder there."""
    text = output.summary_text(format)
    for note in getattr(output, "notes", []):
        text += f"note: {note}\n"
    raw = json.loads(output.results_json())
    res = InMemoryResults(raw, text, dict(output.tables()), output)
    if out is not None:
        res.write(os.fspath(out))
    return res
