"""Results of a run as Python objects: the results.json envelope (docs/results-schema.md), its
records and summary, and the detail tables (per-job, per-round, per-step CSVs) as NumPy columns.
``to_pandas()`` gives DataFrames when pandas is installed."""
import csv
import io
import json
import os
import shutil
import weakref

import numpy as np


def _column(values):
    """A CSV column as a NumPy array: int64, float64 (empty cells NaN), bool, or str."""
    if values and all(v in ("true", "false") for v in values):
        return np.array([v == "true" for v in values], dtype=bool)
    try:
        return np.array([int(v) for v in values], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(v) if v != "" else np.nan for v in values], dtype=np.float64)
    except ValueError:
        return np.array(values, dtype=object)


def _arrays(value):
    """Lists of numbers (at any depth of dicts) become NumPy arrays."""
    if isinstance(value, dict):
        return {k: _arrays(v) for k, v in value.items()}
    if isinstance(value, list):
        if value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return np.asarray(value, dtype=np.float64 if any(isinstance(v, float) for v in value) else np.int64)
        return [_arrays(v) for v in value]
    return value


class Table:
    """A CSV table as named NumPy columns: ``t["jct_s"]``, ``t.jct_s``, ``t.columns``, ``len(t)``."""

    def __init__(self, columns, path=None):
        self._columns = columns
        self.path = path

    @classmethod
    def read(cls, path):
        with open(path, newline="", encoding="utf-8-sig") as f:
            return cls.parse(f, path)

    @classmethod
    def parse(cls, lines, path=None):
        """A table from CSV text (an iterable of lines, or one string)."""
        if isinstance(lines, str):
            lines = io.StringIO(lines, newline="")
        rows = list(csv.reader(lines))
        header, body = (rows[0], rows[1:]) if rows else ([], [])
        columns = {name: _column([r[i] if i < len(r) else "" for r in body]) for i, name in enumerate(header)}
        return cls(columns, path)

    @property
    def columns(self):
        return list(self._columns)

    def __getitem__(self, name):
        return self._columns[name]

    def __getattr__(self, name):
        try:
            return self.__dict__["_columns"][name]
        except KeyError:
            raise AttributeError(name) from None

    def __len__(self):
        return len(next(iter(self._columns.values()))) if self._columns else 0

    def __contains__(self, name):
        return name in self._columns

    def to_dict(self):
        return dict(self._columns)

    def to_pandas(self):
        import pandas as pd
        return pd.DataFrame(self._columns)

    def __repr__(self):
        return f"Table({len(self)} rows: {', '.join(self.columns)})"


class Record:
    """One record: name (policy, scheduler, ...), seed, params, metrics, detail, and its detail
    tables (``files``) loaded on first access as :class:`Table` (``record.jobs``, ``record.rounds``,
    ``record.table("timeline_csv")``)."""

    def __init__(self, raw, read):
        self.name = raw["name"]
        self.seed = raw.get("seed")
        self.params = raw.get("params", {})
        self.metrics = raw.get("metrics", {})
        self.files = raw.get("files", {})
        self.detail = _arrays(raw.get("detail", {}))
        self._read = read  # file name -> Table
        self._tables = {}

    def table(self, key):
        """The detail table named by files[key] (``jobs_csv`` or just ``jobs``)."""
        if key not in self.files and key + "_csv" in self.files:
            key += "_csv"
        if key not in self._tables:
            if key not in self.files:
                raise KeyError(f"{self.name}: no table '{key}' (files: {', '.join(self.files) or 'none'})")
            self._tables[key] = self._read(self.files[key])
        return self._tables[key]

    def __getattr__(self, name):
        files = self.__dict__.get("files", {})
        if name in files or name + "_csv" in files:
            return self.table(name)
        raise AttributeError(name)

    def __getitem__(self, metric):
        return self.metrics[metric]

    def __repr__(self):
        shown = ", ".join(f"{k}={v:.6g}" if isinstance(v, float) else f"{k}={v}" for k, v in self.metrics.items())
        params = f" {self.params}" if self.params else ""
        return f"Record({self.name}{params} seed={self.seed}: {shown})"


class Stat:
    """A metric summarised over the runs of a summary entry (core/stats.h summarize())."""

    def __init__(self, raw):
        self.mean = raw.get("mean")
        self.sd = raw.get("sd")
        self.min = raw.get("min")
        self.max = raw.get("max")
        self.n = raw.get("n")

    def __float__(self):
        return float(self.mean)

    def __eq__(self, other):
        if isinstance(other, Stat):
            return (self.mean, self.sd, self.min, self.max, self.n) == (other.mean, other.sd, other.min, other.max, other.n)
        return self.mean == other

    def __repr__(self):
        return f"{self.mean:.6g}" if self.sd in (0, None) else f"{self.mean:.6g} ± {self.sd:.3g}"


class SummaryEntry:
    """The summary of one (name, params): runs, and each metric's mean, sd, min, max."""

    def __init__(self, raw):
        self.name = raw["name"]
        self.params = raw.get("params", {})
        self.runs = raw.get("runs")
        self.metrics = {k: Stat(v) for k, v in raw.get("metrics", {}).items()}

    def __getitem__(self, metric):
        return self.metrics[metric]

    def means(self):
        return {k: v.mean for k, v in self.metrics.items()}


class Summary(list):
    """The summary entries in order; ``summary["fifo"]`` finds one by name; printed as a table of
    means (± sd over seeds) with every digit that results.json holds."""

    def __getitem__(self, key):
        if isinstance(key, str):
            for e in self:
                if e.name == key:
                    return e
            raise KeyError(key)
        return list.__getitem__(self, key)

    def to_pandas(self):
        import pandas as pd
        rows = []
        for e in self:
            row = {"name": e.name, **e.params, "runs": e.runs}
            for k, s in e.metrics.items():
                row.update({f"{k}_mean": s.mean, f"{k}_sd": s.sd, f"{k}_min": s.min, f"{k}_max": s.max})
            rows.append(row)
        return pd.DataFrame(rows)

    def __str__(self):
        if not self:
            return "(empty summary)"
        metrics = []
        for e in self:
            metrics += [k for k in e.metrics if k not in metrics]
        params = []
        for e in self:
            params += [k for k in e.params if k not in params]
        header = ["name", *params, "runs", *metrics]
        def cell(e, m):
            if m not in e.metrics:
                return ""
            s = e.metrics[m]
            if e.runs != 1:
                return repr(s)
            v = s.mean
            return str(int(v)) if isinstance(v, float) and v.is_integer() and abs(v) < 1e15 else repr(v)
        rows = [[e.name, *[str(e.params.get(p, "")) for p in params], str(e.runs), *[cell(e, m) for m in metrics]]
                for e in self]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
        return "\n".join([fmt(header), *map(fmt, rows)])

    __repr__ = __str__


class Results:
    """A run's results.json as Python objects.

    Attributes: ``command``, ``record_kind``, ``inputs``, ``records`` (list of :class:`Record`),
    ``summary`` (:class:`Summary`), ``derived`` (lists of numbers as NumPy arrays), ``raw`` (the
    JSON as loaded), ``text`` (what the CLI printed), ``path`` (the output folder; a temporary one
    lives as long as this object; None for a run kept in memory, whose tables ``files`` gives:
    a function from a file name to its CSV text)."""

    def __init__(self, raw, path, text="", temporary=None, files=None):
        self.raw = raw
        self.path = path
        self.text = text
        self.schema_version = raw.get("schema_version")
        self.command = raw.get("command")
        self.record_kind = raw.get("record_kind")
        self.inputs = raw.get("inputs", {})
        self._files = files
        self.records = [Record(r, self._read) for r in raw.get("records", [])]
        self.summary = Summary(SummaryEntry(s) for s in raw.get("summary", []))
        self.derived = _arrays(raw.get("derived", {}))
        if temporary:
            self._cleanup = weakref.finalize(self, shutil.rmtree, temporary, True)

    @classmethod
    def load(cls, folder, text="", temporary=None):
        """Loads an output folder (any dmlkit command's --out)."""
        path = os.path.join(folder, "results.json")
        with open(path, encoding="utf-8") as f:
            raw = json.load(f)
        return cls(raw, os.path.abspath(folder), text, temporary)

    def record(self, name, seed=None):
        for r in self.records:
            if r.name == name and (seed is None or r.seed == seed):
                return r
        raise KeyError(name)

    def _read(self, name):
        if self._files is not None:
            return Table.parse(self._files(name), name)
        return Table.read(os.path.join(self.path, name))

    def table(self, name):
        """Any CSV of the output folder by file name (``steps.csv``, ``summary.csv``, ...)."""
        return self._read(name)

    def to_pandas(self):
        """The records as a DataFrame (records.csv): name, seed, params, metrics."""
        import pandas as pd
        return pd.DataFrame([{self.record_kind or "name": r.name, "seed": r.seed, **r.params, **r.metrics}
                             for r in self.records])

    def __str__(self):
        return self.text if self.text else str(self.summary)

    def __repr__(self):
        where = f"in {self.path}" if self.path else "in memory"
        return f"<dmlkit.Results {self.command}: {len(self.records)} record(s) {where}>"
