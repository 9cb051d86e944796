"""Every family's runs from Python with the CLI's arguments, and their registries."""
import numpy as np
import pytest

import dmlkit
from conftest import run_cli


def test_registries_list_every_family():
    assert "bytescheduler" in {e.name for e in dmlkit.comm.schedulers()}
    assert "psld" in {e.name for e in dmlkit.ps.policies()}
    assert "uniform" in {e.name for e in dmlkit.continual.strategies()} or dmlkit.continual.strategies()
    assert "oasis" in {e.name for e in dmlkit.cluster.policies(engine="oasis")}


def test_comm_compare_equals_the_cli(tmp_path):
    args = dict(model="resnet50", workers=2, iterations=3, schedulers=["fifo", "p3"])
    res = dmlkit.comm.compare(**args)
    _, _, _, cli = run_cli(["comm", "compare", "--model", "resnet50", "--workers", "2", "--iterations", "3",
                            "--schedulers", "fifo,p3"], tmp_path / "cli")
    assert res.raw["records"] == cli["records"]
    assert isinstance(res.records[0].detail["iteration_s"], np.ndarray)
    assert len(res.records[0].timeline) > 0


def test_continual_angle_sweep_runs():
    res = dmlkit.continual.angle_sweep(angles="30,160", variants="cl", epochs=50, test_per_task=50,
                                       backend="eigen", runs=1)
    assert res.record_kind == "variant" and [r.params["angle_deg"] for r in res.records] == [30, 160]


def test_ps_compare_runs():
    res = dmlkit.ps.compare(model="vgg16", workers=4, servers=2, iterations=8, stragglers="rotating",
                            policies=["mxnet", "psld"])
    assert [r.name for r in res.records] == ["mxnet", "psld"]
    assert isinstance(res.records[1].detail["iteration_s"], np.ndarray)


def test_generic_run_and_help():
    res = dmlkit.run("cluster", "simulate", workload="synthetic", synthetic_jobs=10, policy="srtf")
    assert res.records[0].name == "srtf"
    assert "--policy-param" in dmlkit.cluster.simulate.__doc__


def test_football_taggers_and_evaluate():
    names = {e.name for e in dmlkit.football.taggers()}
    assert {"keywords", "ngram-mlp"} <= names
    res = dmlkit.football.evaluate(tagger="keywords")
    assert res.records[0].name == "keywords" and 0 < res.records[0].metrics["macro_f1"] <= 1


def test_sweep_plan_and_run(tmp_path):
    sweep = tmp_path / "s.yaml"
    sweep.write_text("command: cluster simulate\nargs: {cluster: 4x4, workload: synthetic, synthetic-jobs: 10}\n"
                     "axes:\n  policy: [fifo, srtf]\n  seed: [1, 2]\n")
    grid = dmlkit.sweep.plan(sweep)
    assert len(grid["cells"]) == 4
    res = dmlkit.sweep.run(sweep, out=tmp_path / "out", jobs=2)
    assert sorted({r.name for r in res.records}) == ["fifo", "srtf"]
    assert {r.seed for r in res.records} == {1, 2}


def test_gnn_policies_and_compare():
    roles = {e.name: e.traits["role"] for e in dmlkit.gnn.policies()}
    assert roles["explore"] == "placement" and roles["online"] == "scheduler"
    res = dmlkit.gnn.compare(graph="cora", partitions=2, machines=2, devices="v100:2", placements=["colocate", "greedy"],
                             schedulers=["fifo-fair"])
    assert {r.name for r in res.records} >= {"colocate+fifo-fair", "greedy+fifo-fair"} or len(res.records) == 2
