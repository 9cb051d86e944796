#!/usr/bin/env python3
"""Finds names and formats that differ between what a dmlkit run prints, its results.json and its
report.html (issue 20): run the README tour commands with --format csv, saving what each prints,
then

    scripts/check-output-names.py OUT_DIR[:PRINTED.csv] ...

For every column of the printed table (the CSV header) and of the report's tables (the names under
their headers), it says which ones are not a metric, input or derived value of results.json (or a column of one
of the folder's CSV files, for detail tables) under the same name or a unit variant of it (X_ms / X_us / X_slots
for X_s, X_pct for a fraction X, X_MB / X_GB for X_bytes; X_mean, X_sd, X_min, X_max for X over seeds or runs). It also flags "-0.000"-style negative zeros and percent signs in
printed cells. Exit status 1 when anything is found. Standard library only."""
import csv
import glob
import html.parser
import io
import json
import re
import sys

# Columns that name what a row is, or counts that are not metrics of a record.
KEYS = {"policy", "scheduler", "algorithm", "variant", "strategy", "method", "placement", "name", "seed", "runs",
        "run", "step", "params", "label", "support"}


def variants(col):
    yield col
    for suffix, repl in (("_ms", "_s"), ("_us", "_s"), ("_slots", "_s"), ("_MB", "_bytes"), ("_GB", "_bytes"),
                         ("_pct", ""), ("_sd", ""), ("_mean", ""), ("_min", ""), ("_max", "")):
        if col.endswith(suffix):
            yield col[: -len(suffix)] + repl


def known_names(res):
    names = set(KEYS) | {res.get("record_kind", "")}
    for rec in res.get("records", []):
        names |= set(rec.get("metrics", {})) | set(rec.get("params", {}))
    names |= set(res.get("inputs", {}))
    derived = res.get("derived", {})
    if isinstance(derived, dict):
        names |= set(derived)
        for value in derived.values():  # per-name entries (derived.algorithms[i], derived.per_class[label])
            items = value if isinstance(value, list) else list(value.values()) if isinstance(value, dict) else []
            if isinstance(value, dict):
                names |= set(value)
            names |= {k for item in items if isinstance(item, dict) for k in item}
    return names


class KeyParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.keys, self.in_key = [], False

    def handle_starttag(self, tag, attrs):
        self.in_key = tag == "code" and ("class", "key") in attrs

    def handle_endtag(self, tag):
        self.in_key = False

    def handle_data(self, data):
        if self.in_key:
            self.keys.append(data)


def check(out_dir, printed):
    problems = []
    with open(f"{out_dir}/results.json") as f:
        res = json.load(f)
    names = known_names(res)
    # Detail tables shown in a report are named as the folder's CSV columns.
    for csv_path in glob.glob(f"{out_dir}/*.csv"):
        with open(csv_path) as f:
            names |= set(next(csv.reader(f), []))
    where = f"{out_dir} ({res.get('command')})"
    columns = []
    if printed:
        with open(printed) as f:
            text = f.read()
        rows = list(csv.reader(io.StringIO(text)))
        if rows:
            columns += [("printed", c) for c in rows[0]]
            for row in rows[1:]:
                for cell in row:
                    if re.fullmatch(r"-0(\.0+)?", cell):
                        problems.append(f"{where}: printed negative zero '{cell}'")
                    if cell.endswith("%"):
                        problems.append(f"{where}: printed percent sign in '{cell}' (use a _pct column)")
    try:
        with open(f"{out_dir}/report.html") as f:
            p = KeyParser()
            p.feed(f.read())
            columns += [("report", k) for k in p.keys]
    except FileNotFoundError:
        pass
    for place, col in columns:
        if not any(v in names for v in variants(col)):
            problems.append(f"{where}: {place} column '{col}' is not a results.json name (nor a unit variant of one)")
    return problems


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    problems = []
    for arg in argv[1:]:
        out_dir, _, printed = arg.partition(":")
        problems += check(out_dir, printed or None)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
