"""dmlkit.football and dmlkit.continual call their run entries in-process (src/football/run.h,
src/continual/run.h): the same records as the CLI, nothing written unless asked."""
import os

import pytest

import dmlkit
from conftest import SOURCE_DIR, run_cli

FEED = os.path.join(SOURCE_DIR, "data", "football", "appsync", "so0102sim_match_02.json")


def test_football_evaluate_in_process_equals_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = dmlkit.football.evaluate(tagger="keywords")
    assert res.path is None and list(tmp_path.iterdir()) == []
    _, _, _, cli = run_cli(["football", "evaluate", "--tagger", "keywords"], tmp_path / "cli")
    assert res.raw["records"] == cli["records"] and res.inputs == cli["inputs"]
    assert len(res.table("lines.csv")) > 0 and "tagger keywords" in res.text
    assert os.path.exists(os.path.join(res.write(tmp_path / "out"), "per_class.csv"))
    with pytest.raises(dmlkit.Error, match="--model"):
        dmlkit.football.evaluate(tagger="keywords", model="nope.json")


def test_football_segments_and_tag_in_process(tmp_path):
    seg = dmlkit.football.segments(lines=FEED, tagger="keywords")
    assert seg.path is None and len(seg.table) == len(seg.segments["segments"])
    tags = dmlkit.football.tag(lines=FEED, tagger="keywords")
    assert "label" in tags.columns and len(tags) > 0
    seg.write(tmp_path / "seg")
    assert (tmp_path / "seg" / "segments.json").exists()


def test_continual_angle_sweep_in_process_equals_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = dict(angles="30,160", variants="cl", epochs=50, test_per_task=50, backend="eigen", runs=1)
    res = dmlkit.continual.angle_sweep(**args)
    assert res.path is None and list(tmp_path.iterdir()) == []
    _, _, _, cli = run_cli(["continual", "angle-sweep", "--angles", "30,160", "--variants", "cl", "--epochs", "50",
                            "--test-per-task", "50", "--backend", "eigen", "--runs", "1"], tmp_path / "cli")
    assert res.raw["records"] == cli["records"] and res.inputs == cli["inputs"]
    assert len(res.table("critical_angles.csv")) == 1
    with pytest.raises(dmlkit.Error, match="unknown option 'nope'"):
        dmlkit.continual.angle_sweep(nope=1)
