"""dmlkit.cluster: runs equal to the CLI's, registry listings, Python policies through the seam."""
import os

import numpy as np
import pytest

import dmlkit
from conftest import EXAMPLES, run_cli
from fifo import Fifo
from sjf import ShortestJobFirst


def test_simulate_prints_the_numbers_of_the_cli(tmp_path):
    # The acceptance line, against the dmlkit program.
    res = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy="tiresias", seed=1)
    _, _, _, cli = run_cli(["cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4", "--policy",
                            "tiresias", "--seed", "1"], tmp_path / "cli")
    assert res.raw["summary"] == cli["summary"]
    assert res.raw["records"] == cli["records"]
    assert res.summary["tiresias"]["avg_jct_s"].mean == cli["summary"][0]["metrics"]["avg_jct_s"]["mean"]
    text = str(res.summary)
    assert "tiresias" in text and repr(cli["summary"][0]["metrics"]["avg_jct_s"]["mean"]) in text
    # The CLI's printed table is kept too.
    assert "tiresias" in res.text


def test_results_have_numpy_tables():
    res = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy="fifo", seed=1)
    rec = res.records[0]
    jobs = rec.jobs
    assert isinstance(jobs["jct_s"], np.ndarray) and jobs["jct_s"].dtype == np.float64
    assert len(jobs) == rec.metrics["jobs"]
    assert np.isclose(np.mean(jobs["jct_s"]), rec.metrics["avg_jct_s"])
    rounds = rec.rounds
    assert rounds["time_s"].ndim == 1 and len(rounds) > 0
    assert res.inputs["workload"] == "pollux-6"


def test_to_pandas():
    pd = pytest.importorskip("pandas")
    res = dmlkit.cluster.compare(workload="pollux-6", cluster="16x4", policies=["fifo", "srtf"], seed=1)
    df = res.to_pandas()
    assert list(df["policy"]) == ["fifo", "srtf"]
    assert isinstance(res.records[1].jobs.to_pandas(), pd.DataFrame)
    assert "avg_jct_s_mean" in res.summary.to_pandas().columns


def test_policies_listing_has_summaries_and_knobs():
    entries = {e.name: e for e in dmlkit.cluster.policies()}
    assert "fifo" in entries and entries["fifo"].summary
    assert [k.name for k in entries["fifo"].knobs] == ["fifo.backfill"]
    assert entries["fifo"].knobs[0].type == "bool"
    tiresias = {k.name: k for k in entries["tiresias"].knobs}
    assert tiresias["tiresias.queues"].type == "int"
    dmlkit.cluster.register(Fifo)
    py = {e.name: e for e in dmlkit.cluster.policies()}["py-fifo"]
    assert py.python and py.knobs[0].name == "py-fifo.backfill"
    assert not entries["fifo"].python


def test_python_fifo_reproduces_the_cpp_fifo_exactly():
    cpp = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy="fifo", seed=1)
    py = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=Fifo, seed=1)
    assert py.records[0].name == "py-fifo"
    assert py.records[0].metrics == cpp.records[0].metrics
    for column in cpp.records[0].jobs.columns:
        assert np.array_equal(py.records[0].jobs[column], cpp.records[0].jobs[column]), column
    for column in cpp.records[0].rounds.columns:
        assert np.array_equal(py.records[0].rounds[column], cpp.records[0].rounds[column]), column


def test_python_fifo_backfill_knob_matches_cpp():
    cpp = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy="fifo", seed=1,
                                  policy_param={"fifo.backfill": True})
    py = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=Fifo, seed=1,
                                 policy_param={"py-fifo.backfill": True})
    assert py.records[0].metrics == cpp.records[0].metrics
    with pytest.raises(dmlkit.Error, match="py-fifo.backfill: expected"):
        dmlkit.cluster.simulate(workload="pollux-6", policy=Fifo, policy_param={"py-fifo.backfill": "maybe"})


def test_compare_runs_python_and_cpp_policies_together():
    res = dmlkit.cluster.compare(workload="pollux-6", cluster="16x4", policies=["fifo", ShortestJobFirst, "srtf"],
                                 seed=1, threads=2)
    assert [r.name for r in res.records] == ["fifo", "py-sjf", "srtf"]
    sjf = res.record("py-sjf")
    assert sjf.metrics["finished"] == sjf.metrics["jobs"]
    # Shortest first beats first come first served on average JCT (and never preempts).
    assert sjf.metrics["avg_jct_s"] < res.record("fifo").metrics["avg_jct_s"]
    assert sjf.metrics["preemptions"] == 0


class Boom(dmlkit.cluster.Policy):
    name = "py-boom"

    def schedule(self, view, jobs):
        if view.now_s > 0:
            return 1 / 0  # line reported
        return None


class BadReturn(dmlkit.cluster.Policy):
    name = "py-bad-return"

    def schedule(self, view, jobs):
        return "everything"


class Overcommit(dmlkit.cluster.Policy):
    name = "py-overcommit"

    def schedule(self, view, jobs):
        return {i: [(0, 1000)] for i in range(len(jobs))}


def test_python_exception_is_one_line_with_the_last_frame():
    with pytest.raises(dmlkit.Error) as info:
        dmlkit.cluster.simulate(workload="pollux-6", policy=Boom)
    message = str(info.value)
    assert "\n" not in message
    assert "test_cluster.py:" in message and "ZeroDivisionError: division by zero" in message
    assert "py-boom.schedule" in message
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_bad_decisions_are_errors_not_crashes():
    with pytest.raises(dmlkit.Error, match="expected None, a dict"):
        dmlkit.cluster.simulate(workload="pollux-6", policy=BadReturn)
    with pytest.raises(dmlkit.Error):
        dmlkit.cluster.simulate(workload="pollux-6", policy=Overcommit)
    with pytest.raises(dmlkit.Error, match="unknown policy 'nope'"):
        dmlkit.cluster.simulate(workload="pollux-6", policy="nope")
    with pytest.raises(dmlkit.Error, match="unknown option '--polcy'"):
        dmlkit.cluster.simulate(workload="pollux-6", polcy="fifo")


def test_builtin_names_cannot_be_replaced():
    class Fake(dmlkit.cluster.Policy):
        name = "fifo"

        def schedule(self, view, jobs):
            return None
    with pytest.raises(dmlkit.Error, match="built-in policy"):
        dmlkit.cluster.register(Fake)


class Checker(dmlkit.cluster.Policy):
    """Checks the view at every decision (an AssertionError would fail the run), then FIFO with
    backfilling so that the run ends; keeps the last view to check it is invalid afterwards."""
    name = "py-checker"
    kept = None

    def schedule(self, view, jobs):
        Checker.kept = (view, jobs)
        assert view.free_gpus.flags.writeable is False
        assert len(view.free_gpus) == view.num_servers
        assert view.free_gpus.sum() == view.total_gpus - jobs.gpus.sum()
        assert np.array_equal(jobs.running, jobs.gpus > 0)
        assert np.array_equal(np.flatnonzero(~jobs.running), jobs.waiting)
        if len(jobs):
            # The columns (kept across calls, updated from departed/num_arrived) equal the jobs'.
            assert np.array_equal(jobs.id, [j.id for j in jobs])
            assert np.array_equal(jobs.num_gpus, [j.num_gpus for j in jobs])
            assert np.array_equal(jobs.arrival_s, [j.arrival_s for j in jobs])
            assert np.array_equal(jobs.duration_s, [j.duration_s for j in jobs])
            assert np.all(np.diff(jobs.id) > 0)  # arrival order
            assert list(jobs.iter_waiting()) == list(jobs.waiting)
            assert np.array_equal(jobs.attained_gpu_s, [j.attained_gpu_s for j in jobs])
            assert all(j.placement.gpus == g for j, g in zip(jobs, jobs.gpus))
        free = dmlkit.cluster.FreeGpus(view.free_gpus)
        assert free.per_server.tolist() == dmlkit.cluster.FreeGpus(view).per_server.tolist()
        out = {}
        for i in jobs.waiting:
            p = free.place(int(jobs.num_gpus[i]))
            if p is not None:
                out[int(i)] = p
        return out


def test_view_is_consistent_and_invalid_after_the_call():
    res = dmlkit.cluster.simulate(workload="synthetic", synthetic_jobs=30, policy=Checker, seed=3)
    assert res.records[0].metrics["finished"] == 30
    res = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=Checker, seed=1)
    assert res.records[0].metrics["finished"] == 160
    view, jobs = Checker.kept
    with pytest.raises(ValueError, match="valid only during schedule"):
        view.now_s
    with pytest.raises(ValueError, match="valid only during schedule"):
        len(jobs)


def test_experiment_presets_listing():
    presets = {p["name"]: p for p in dmlkit.cluster.experiments()}
    assert "dl2-96" in presets and presets["dl2-96"]["policies"]


def test_examples_run_from_the_cli(tmp_path):
    fifo_file = os.path.join(EXAMPLES, "fifo.py")
    _, _, _, py = run_cli(["cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4",
                           "--policy-file", f"{fifo_file}:Fifo"], tmp_path / "py")
    _, _, _, cpp = run_cli(["cluster", "simulate", "--workload", "pollux-6", "--cluster", "16x4",
                            "--policy", "fifo"], tmp_path / "cpp")
    assert py["records"][0]["name"] == "py-fifo"
    assert py["records"][0]["metrics"] == cpp["records"][0]["metrics"]
    _, _, _, both = run_cli(["cluster", "compare", "--workload", "pollux-6", "--policies", "fifo",
                             "--policy-file", f"{os.path.join(EXAMPLES, 'sjf.py')}:ShortestJobFirst"],
                            tmp_path / "both")
    assert [r["name"] for r in both["records"]] == ["fifo", "py-sjf"]


def test_cli_python_errors_are_one_line_exit_2(tmp_path):
    bad = tmp_path / "bad_policy.py"
    bad.write_text("import dmlkit\n\nclass Bad(dmlkit.cluster.Policy):\n    def schedule(self, view, jobs):\n"
                   "        return {0: [(0, 1)]} if view.now_s < 0 else jobs.no_such_column\n")
    code, _, err, _ = run_cli(["cluster", "simulate", "--workload", "pollux-6", "--policy-file", f"{bad}:Bad"],
                              tmp_path / "out", check=False)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("dmlkit: ")
    assert f"{bad}:5: AttributeError" in err and "(in Bad.schedule)" in err
    syntax = tmp_path / "syntax.py"
    syntax.write_text("def broken(:\n")
    code, _, err, _ = run_cli(["cluster", "simulate", "--policy-file", f"{syntax}:X"], tmp_path / "o2", check=False)
    assert code == 2 and f"{syntax}:1: SyntaxError" in err and err.count("\n") == 1
    code, _, err, _ = run_cli(["cluster", "simulate", "--policy-file", f"{bad}:Nope"], tmp_path / "o3", check=False)
    assert code == 2 and "no class 'Nope'" in err and "Bad" in err
    code, _, err, _ = run_cli(["cluster", "simulate", "--policy-file", "missing.py:X"], tmp_path / "o4", check=False)
    assert code == 2 and "missing.py: no such file" in err
    code, _, err, _ = run_cli(["cluster", "simulate", "--policy-file", "no-colon"], tmp_path / "o5", check=False)
    assert code == 2 and "expected FILE.py:CLASS" in err
    # A decision that over-fills a server is the policy's error, not dmlkit's: exit 2 (not 1,
    # "internal error"), naming the policy, the job and the server.
    over = tmp_path / "over.py"
    over.write_text("import dmlkit\n\nclass Over(dmlkit.cluster.Policy):\n    name = 'py-over'\n"
                    "    def schedule(self, view, jobs):\n        return {i: [(0, 4)] for i in jobs.iter_waiting()}\n")
    code, _, err, _ = run_cli(["cluster", "simulate", "--workload", "pollux-6", "--policy-file", f"{over}:Over"],
                              tmp_path / "o6", check=False)
    assert code == 2, err
    assert err.count("\n") == 1 and "internal error" not in err
    assert "policy 'py-over'" in err and "server 0" in err and "over capacity" in err


def test_python_ps_policy_runs_experiment_presets(tmp_path):
    from ps_fifo import PsFifo
    res = dmlkit.cluster.experiment("dl2-96", seeds=[1, 2], policies=["fifo", PsFifo])
    assert [(r.name, r.seed) for r in res.records] == [("fifo", 1), ("py-ps-fifo", 1), ("fifo", 2), ("py-ps-fifo", 2)]
    assert all(r.metrics["finished"] == r.metrics["jobs"] for r in res.records)
    assert res.summary["py-ps-fifo"].runs == 2
    # A policy that does not declare ps_jobs is refused on a parameter-server preset, in one line.
    with pytest.raises(dmlkit.Error, match="does not schedule parameter-server jobs"):
        dmlkit.cluster.experiment("dl2-96", seeds=[1], policies=[Fifo])
    _, _, _, cli = run_cli(["cluster", "compare", "--experiment", "optimus-testbed", "--seeds", "1", "--policies", "fifo",
                            "--policy-file", os.path.join(EXAMPLES, "ps_fifo.py") + ":PsFifo"], tmp_path / "cli")
    assert [r["name"] for r in cli["records"]] == ["fifo", "py-ps-fifo"]


class WakingFifo(Fifo):
    """The FIFO, asking to be woken 7 s after each decision (rounds are 60 s): more decisions, the
    same schedule."""
    name = "py-waking-fifo"
    wakeups = 0

    def next_wakeup_s(self, view, jobs):
        WakingFifo.wakeups += 1
        assert len(jobs) >= 0 and view.now_s >= 0
        return view.now_s + 7.0


def test_next_wakeup_s_is_asked_and_honoured():
    plain = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=Fifo, seed=1)
    waking = dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=WakingFifo, seed=1)
    assert WakingFifo.wakeups > 0
    assert len(waking.records[0].rounds) > len(plain.records[0].rounds)  # decided at the wake-ups too
    # The same schedule; the extra event boundaries only move the last bits of the progress sums.
    for k, v in plain.records[0].metrics.items():
        assert waking.records[0].metrics[k] == pytest.approx(v, rel=1e-9), k


class Knobbed(dmlkit.cluster.Policy):
    name = "py-knobbed"
    knobs = [dmlkit.Knob("py-knobbed.alpha", 0.5, "a fraction", min=0, max=1),
             dmlkit.Knob("py-knobbed.mode", "a", "a mode", choices=["a", "b"]),
             dmlkit.Knob("py-knobbed.count", 3, "a count")]
    seen = None

    def schedule(self, view, jobs):
        Knobbed.seen = dict(self.options.knobs)
        return None  # starts nothing: the run ends at the time limit


def test_python_knobs_are_declared_typed_and_checked():
    dmlkit.cluster.register(Knobbed)
    entry = {e.name: e for e in dmlkit.cluster.policies()}["py-knobbed"]
    assert [(k.name, k.range) for k in entry.knobs] == [("py-knobbed.alpha", "double in [0, 1]"),
                                                       ("py-knobbed.mode", "enum a|b"), ("py-knobbed.count", "int")]
    dmlkit.cluster.simulate(workload="synthetic", synthetic_jobs=2, policy=Knobbed,
                            policy_param={"py-knobbed.alpha": 0.25, "py-knobbed.mode": "b"})
    assert Knobbed.seen == {"py-knobbed.alpha": 0.25, "py-knobbed.mode": "b", "py-knobbed.count": 3}
    with pytest.raises(dmlkit.Error, match=r"py-knobbed.alpha: expected a number in \[0, 1\], got '2'"):
        dmlkit.cluster.simulate(workload="synthetic", policy=Knobbed, policy_param={"py-knobbed.alpha": 2})
    with pytest.raises(dmlkit.Error, match="py-knobbed.typo: no knob of"):
        dmlkit.cluster.simulate(workload="synthetic", policy=Knobbed, policy_param={"py-knobbed.typo": 1})
