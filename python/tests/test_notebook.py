"""examples/quickstart.ipynb runs: its code cells are executed in order in one namespace (what a
kernel does), with matplotlib's non-interactive backend, so the notebook cannot rot."""
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from conftest import EXAMPLES  # noqa: E402


def run_notebook(path):
    with open(path, encoding="utf-8") as f:
        notebook = json.load(f)
    namespace = {"__name__": "__main__"}
    for index, cell in enumerate(notebook["cells"]):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        exec(compile(source, f"{os.path.basename(path)}[cell {index}]", "exec"), namespace)
    return namespace


def test_quickstart_notebook_runs_and_plots_one_cdf_per_policy():
    plt.close("all")
    ns = run_notebook(os.path.join(EXAMPLES, "quickstart.ipynb"))
    results = ns["results"]
    assert [r.name for r in results.records] == ["fifo", "srtf", "tiresias", "py-sjf"]
    ax = ns["ax"]
    assert len(ax.get_lines()) == 4
    assert all(r.metrics["finished"] == r.metrics["jobs"] for r in results.records)
