"""Results of a run entry called in-process (comm, ps, gnn: their src/<family> run entries): the
same :class:`dmlkit.Results` as a folder gives, built from the run's output in memory (results.json,
records.csv, summary.csv and the detail tables), so nothing is written. ``write(path)`` (or
``out=`` in the family's functions) writes the output folder the CLI would write."""
import csv
import io
import json
import os

from .results import Results, Table, _column


def _table(text, name):
    rows = list(csv.reader(io.StringIO(text)))
    header, body = (rows[0], rows[1:]) if rows else ([], [])
    columns = {n: _column([r[i] if i < len(r) else "" for r in body]) for i, n in enumerate(header)}
    return Table(columns, name)


class RunResults(Results):
    """A run's Results held in memory: ``path`` is None until ``write(path)``."""

    def __init__(self, output, text=""):
        self._output = output
        self._texts = output.tables()
        super().__init__(json.loads(output.results_json()), None, text)
        for record in self.records:
            for key, name in record.files.items():
                if name in self._texts:
                    record._tables[key] = _table(self._texts[name], name)
        self.notes = list(output.notes)

    def table(self, name):
        """Any table of the run by file name (``records.csv``, ``timeline-fifo.csv``, ...)."""
        if name in self._texts:
            return _table(self._texts[name], name)
        if self.path is not None:
            return Table.read(os.path.join(self.path, name))
        raise KeyError(f"no table '{name}' (tables: {', '.join(sorted(self._texts))})")

    def write(self, path):
        """Writes the output folder (results.json, the CSV tables, report.html) and returns its path."""
        self.path = self._output.write(os.fspath(path))
        return self.path

    def __repr__(self):
        where = self.path if self.path is not None else "memory"
        return f"<dmlkit.Results {self.command}: {len(self.records)} record(s) in {where}>"


def finish(output, out=None, format="table"):
    """The RunResults of a run entry's output; written to `out` when given."""
    res = RunResults(output, output.text(format))
    if out is not None:
        res.write(out)
    return res


def set_fields(spec, options, names):
    """Copies the keyword options named in `names` (option -> field) that were given onto `spec`;
    returns the options left over."""
    left = dict(options)
    for option, field in names.items():
        if option in left:
            value = left.pop(option)
            if value is None:
                continue
            if isinstance(value, tuple):
                value = list(value)
            target = spec
            *path, last = field.split(".")
            for p in path:
                target = getattr(target, p)
            setattr(target, last, value)
    return left


def knob_values(value):
    """A dict of knobs {'name': value} (or a list of 'name=value') as the C++ knob strings."""
    if value is None:
        return {}
    if isinstance(value, dict):
        return {k: _text(v) for k, v in value.items()}
    if isinstance(value, str):
        value = [value]
    out = {}
    for kv in value:
        key, sep, v = kv.partition("=")
        if not sep or not key:
            from ._dmlkit import Error
            raise Error(f"expected key=value, got '{kv}'")
        out[key] = v
    return out


def _text(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def refuse_unknown(command, left):
    if left:
        from ._dmlkit import Error
        raise Error(f"{command}: unknown option(s) {', '.join('--' + k.replace('_', '-') for k in sorted(left))}")
