#!/usr/bin/env python3
"""Checks that the README tour's comments state what the commands print (issue 44).

Every command of README.md's "A quick tour of the CLI" whose comment quotes a figure is run, and
each figure must appear in what the command printed, at the precision the comment gives it:
"32,969 s" is found when some number of the output rounds to 32969 (32968.6 does), "1.13x" when
one rounds to 1.13. A figure is a number with a thousands separator or a decimal point, or any
number followed by a unit (s, x, %, MB, GB); "about 1 min" and names such as "dl2-96" are not
figures. A comment may continue on the lines under its command that start with "#".

Usage: check-tour.py BINARY OUT_DIR [--only REGEX] [--list]
  --only REGEX  run only the commands that match REGEX
  --list        print the commands and their figures without running anything
Prints one line per figure (found / NOT FOUND with the command's number) and exits 1 if a figure
is missing, 2 on bad usage. Commands that need Slurm or read earlier outputs are skipped.
"""
import os
import pathlib
import re
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
FIGURE = re.compile(r"(?<![\w.\-/])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d+)\s?(s|x|%|MB|GB)?(?![\w\-])")
NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")
SKIP = re.compile(r"--slurm|^diff|^report|^sweep (status|collect)")


def tour(readme):
    """[(command, comment)] of the tour block, continuation lines joined."""
    text = readme.read_text(encoding="utf-8")
    start = text.index("## A quick tour of the CLI")
    end = text.find("\n## ", start + 1)
    block = text[start:end if end >= 0 else len(text)]
    out, pending, pending_comment = [], "", ""
    for line in block.splitlines():
        if not line.startswith("    "):
            continue
        code = line.strip()
        if code.startswith("#"):
            if out and not pending:  # a comment line continues the last command's comment
                cmd, comment = out[-1]
                out[-1] = (cmd, (comment + " " + code.lstrip("# ")).strip())
            continue
        comment = ""
        m = re.search(r"\s+#\s?(.*)$", code)
        if m:
            comment = m.group(1)
            code = code[: m.start()]
        if code.endswith("\\"):
            pending += code[:-1].strip() + " "
            pending_comment = (pending_comment + " " + comment).strip()
            continue
        out.append((pending + code, (pending_comment + " " + comment).strip()))
        pending, pending_comment = "", ""
    return [(c, k) for c, k in out if c.startswith("build/bin/dmlkit ")]


def figures(comment):
    """The figures a comment quotes: (text, value, decimals)."""
    found = []
    for m in FIGURE.finditer(comment):
        number, unit = m.group(1), m.group(2)
        if unit is None and "," not in number and "." not in number:
            continue  # a bare integer ("window 40", "16 PSs") is a setting, not a figure
        plain = number.replace(",", "")
        decimals = len(plain.split(".")[1]) if "." in plain else 0
        found.append((m.group(0).strip(), float(plain), decimals))
    return found


def printed_numbers(text):
    values = []
    for m in NUMBER.finditer(text):
        try:
            values.append(float(m.group(0).replace(",", "")))
        except ValueError:
            pass
    return values


def matches(value, decimals, numbers):
    tolerance = 0.5 * 10 ** (-decimals) + 1e-9
    return any(abs(abs(n) - value) <= tolerance for n in numbers)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    only, listing = None, "--list" in argv
    if "--only" in argv:
        i = argv.index("--only")
        if i + 1 >= len(argv):
            print("check-tour: --only needs a REGEX", file=sys.stderr)
            return 2
        only = re.compile(argv[i + 1])
        args = [a for a in args if a != argv[i + 1]]
    if len(args) != 2 and not (listing and len(args) >= 0):
        print(__doc__.strip().splitlines()[8], file=sys.stderr)
        return 2
    missing = 0
    for n, (command, comment) in enumerate(tour(ROOT / "README.md"), 1):
        figs = figures(comment)
        words = command[len("build/bin/dmlkit "):]
        if not figs or SKIP.search(words) or (only and not only.search(words)):
            continue
        if listing:
            print(f"{n}: {words}\n   figures: {', '.join(f[0] for f in figs)}")
            continue
        binary, out_dir = pathlib.Path(args[0]).resolve(), pathlib.Path(args[1]).resolve()
        run_dir = out_dir / str(n)
        run_dir.mkdir(parents=True, exist_ok=True)
        for d in ("experiments", "examples", "data"):
            link = run_dir / d
            if not link.exists():
                link.symlink_to(ROOT / d)
        cmd = shlex.split(words)
        if "--out" in cmd:
            cmd[cmd.index("--out") + 1] = str(run_dir / "out")
        proc = subprocess.run([str(binary)] + cmd, cwd=run_dir, capture_output=True, text=True)
        if proc.returncode != 0:
            print(f"FAILED     {n}: {words}: exit {proc.returncode}: {proc.stderr.strip()[:300]}")
            missing += 1
            continue
        numbers = printed_numbers(proc.stdout)
        for text, value, decimals in figs:
            ok = matches(value, decimals, numbers)
            missing += 0 if ok else 1
            print(f"{'found    ' if ok else 'NOT FOUND'}  {n}: {text:>10}   {words[:90]}")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
