"""dmlkit.influence: runs, the registry, and an algorithm written in Python (examples/influence_bandit.py)."""
import os

import numpy as np
import pytest

import dmlkit
from conftest import EXAMPLES, run_cli
from influence_bandit import EpsilonGreedy

# Long enough for a bandit to learn on a small graph (k x steps >> nodes); well under a second.
ARGS = dict(graph="er:nodes=100,degree=4", k=3, steps=150, runs=2, seed=1, no_best_fixed=True)


def test_python_bandit_runs_next_to_cpp_algorithms_and_is_deterministic():
    a = dmlkit.influence.run(algorithms=["random", EpsilonGreedy], **ARGS)
    b = dmlkit.influence.run(algorithms=["random", EpsilonGreedy], **ARGS)
    names = [r.name for r in a.records]
    assert names.count("py-epsilon-greedy") == 2 and names.count("random") == 2
    assert [r.metrics for r in a.records] == [r.metrics for r in b.records]
    per_step = a.derived["algorithms"]
    assert any(d.get("name") == "py-epsilon-greedy" for d in per_step)
    # It learns: more activated users than picking at random (570 against 516.5 for this seed; the
    # C++ epsilon-greedy gets 549).
    s = a.summary
    assert s["py-epsilon-greedy"]["total_activated"].mean > 1.05 * s["random"]["total_activated"].mean


def test_algorithm_file_on_the_cli_gives_the_same_run(tmp_path):
    py = dmlkit.influence.run(algorithms=[EpsilonGreedy], **ARGS)
    _, _, _, cli = run_cli(["influence", "run", "--graph", ARGS["graph"], "--k", "3", "--steps", "150", "--runs", "2",
                            "--seed", "1", "--no-best-fixed", "--algorithms", "py-epsilon-greedy",
                            "--algorithm-file", os.path.join(EXAMPLES, "influence_bandit.py") + ":EpsilonGreedy"],
                           tmp_path / "cli")
    assert [r["metrics"] for r in cli["records"]] == [r.metrics for r in py.records]


class Repeats(dmlkit.influence.Algorithm):
    name = "py-repeats"

    def select(self, step, rng):
        return [int(step.present_nodes[0])] * step.k


class Raises(dmlkit.influence.Algorithm):
    name = "py-raises"

    def select(self, step, rng):
        raise RuntimeError("no idea")


def test_bad_seed_sets_and_exceptions_are_errors():
    with pytest.raises(dmlkit.Error, match="chosen twice"):
        dmlkit.influence.run(algorithms=[Repeats], **ARGS)
    with pytest.raises(dmlkit.Error, match=r"test_influence.py:\d+: RuntimeError: no idea \(in py-raises.select\)"):
        dmlkit.influence.run(algorithms=[Raises], **ARGS)


def test_algorithms_listing():
    names = {e.name: e for e in dmlkit.influence.algorithms()}
    assert "rsb" in names and [k.name for k in names["rsb"].knobs] == ["rsb.gamma", "rsb.c"]


def test_run_in_process_writes_nothing_unless_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = dmlkit.influence.run(algorithms=["rsb", "random"], gamma=0.3, algorithm_param={"cucb.alpha": 2}, **ARGS)
    assert res.path is None and list(tmp_path.iterdir()) == []
    assert res.inputs["algorithm_params"]["rsb_gamma"] == 0.3 and res.inputs["algorithm_params"]["cucb_alpha"] == 2
    assert len(res.table("steps.csv")) == 2 * 150
    assert res.write(tmp_path / "out").endswith("out") and (tmp_path / "out" / "results.json").exists()
    written = dmlkit.influence.run(algorithms=["random"], out=tmp_path / "w", **ARGS)
    assert written.path and len(written.table("runs.csv")) == 2 * 150
    with pytest.raises(dmlkit.Error, match="rsb.gamma"):
        dmlkit.influence.run(algorithms=["rsb"], gamma=2, **ARGS)
    with pytest.raises(dmlkit.Error, match="--k"):
        dmlkit.influence.run(**{**ARGS, "k": 0})
