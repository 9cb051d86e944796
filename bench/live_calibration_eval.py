#!/usr/bin/env python3
"""Sim-to-real gap before and after calibration (docs/live-mode.md, "Calibration").

    bench/live_calibration_eval.py --real REPLAY_DIR --calibration FILE [--calibration-time-scale S]
                                   [--predictor sim|fake] [--calibration-statistic mean|median|sample]
                                   [--seed N] [--dmlkit build/bin/dmlkit] [--format table|json]

REPLAY_DIR is the output folder of a `dmlkit cluster replay --slurm` run (its real JCTs and the
replay's own, uncalibrated, simulation). The script runs `dmlkit cluster simulate --calibration
FILE` on the same jobs, cluster, policy and simulator settings, and prints, before and after:
the gap of the average JCT, (real - sim) / sim, and the median over jobs of |real - sim| / sim.
Calibrating on one replay and evaluating on another is the honest use: pass a calibration.json
from a different run than REPLAY_DIR.

--predictor fake predicts with `dmlkit cluster replay --fake NxG --calibration FILE` instead: the
controller itself on the in-memory Slurm, every Slurm call and start, completion and requeue
costing its measured latency (docs/live-mode.md); its "real" JCTs are the prediction.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile


def gaps(real, sim):
    names = [n for n in real if n in sim and real[n] is not None and sim[n] is not None and sim[n] > 0]
    ra = sum(real[n] for n in names) / len(names)
    sa = sum(sim[n] for n in names) / len(names)
    per_job = [abs(real[n] - sim[n]) / sim[n] for n in names]
    return {"jobs": len(names), "real_avg_jct_s": ra, "sim_avg_jct_s": sa, "avg_gap": (ra - sa) / sa,
            "median_job_gap": statistics.median(per_job), "mean_job_gap": sum(per_job) / len(per_job)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--real", required=True)
    ap.add_argument("--calibration", required=True)
    ap.add_argument("--calibration-time-scale", type=float, default=0)
    ap.add_argument("--calibration-statistic", default="mean", choices=["mean", "median", "sample"])
    ap.add_argument("--predictor", default="sim", choices=["sim", "fake"])
    ap.add_argument("--seed", type=int, default=0)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--dmlkit", default=os.path.join(root, "build", "bin", "dmlkit"))
    ap.add_argument("--format", default="table", choices=["table", "json"])
    a = ap.parse_args()

    res = json.load(open(os.path.join(a.real, "results.json")))
    inp = res["inputs"]
    rec = res["records"][0]
    jobs = rec["detail"]["jobs"]
    real = {j["name"]: j["real_jct_s"] for j in jobs}
    before = {j["name"]: j["sim_jct_s"] for j in jobs}
    gpn = inp["cluster_gpus"] // inp["cluster_nodes"]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "sim")
        if a.predictor == "sim":
            cmd = [a.dmlkit, "cluster", "simulate", "--workload", inp["workload"], "--jobs", str(len(jobs)),
                   "--cluster", f"{inp['cluster_nodes']}x{gpn}", "--drop-oversized", "--policy", inp["policy"],
                   "--placement", inp["placement"], "--round", str(inp["round_s"]),
                   "--restart-delay", str(inp["restart_delay_s"]), "--calibration", a.calibration,
                   "--calibration-time-scale", str(a.calibration_time_scale), "--out", out, "--format", "json",
                   "--seed", str(a.seed or 1)]
        else:
            cmd = [a.dmlkit, "cluster", "replay", "--fake", f"{inp['cluster_nodes']}x{gpn}", "--workload",
                   inp["workload"], "--jobs", str(len(jobs)), "--policy", inp["policy"], "--placement",
                   inp["placement"], "--round", str(inp["round_s"]), "--restart-delay", str(inp["restart_delay_s"]),
                   "--time-scale", str(inp["time_scale"]), "--calibration", a.calibration, "--out", out,
                   "--format", "json", "--seed", str(a.seed),
                   # the replay's own --unexpressible; replays written before it existed narrowed
                   "--unexpressible", inp.get("unexpressible", "narrow")]
        if a.calibration_statistic != "mean":
            cmd += ["--calibration-statistic", a.calibration_statistic]
        for k, v in inp.get("policy_params", {}).items():
            cmd += ["--policy-param", f"{k}={v}"]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        after = {}
        if a.predictor == "sim":
            with open(os.path.join(out, f"jobs-{inp['policy']}-seed1.csv")) as f:
                for row in csv.DictReader(f):
                    after[row["name"]] = float(row["jct_s"]) if row["jct_s"] not in ("", "nan") else None
        else:
            with open(os.path.join(out, "jobs.csv")) as f:
                for row in csv.DictReader(f):
                    after[row["job"]] = float(row["real_jct_s"]) if row["real_jct_s"] else None
    # The uncalibrated simulation must be the replay's own (same jobs, same settings).
    b, c = gaps(real, before), gaps(real, after)
    result = {"real": a.real, "calibration": a.calibration, "predictor": a.predictor,
              "statistic": a.calibration_statistic, "policy": inp["policy"], "time_scale": inp["time_scale"],
              "before": b, "after": c}
    if a.format == "json":
        print(json.dumps(result, indent=1))
    else:
        print(f"{inp['policy']:15s} scale {inp['time_scale']:<5} jobs {b['jobs']:3d}  real avg {b['real_avg_jct_s']:9.1f}"
              f"  before: sim {b['sim_avg_jct_s']:9.1f} gap {100 * b['avg_gap']:+6.1f}% median job {100 * b['median_job_gap']:5.1f}%"
              f"  after: sim {c['sim_avg_jct_s']:9.1f} gap {100 * c['avg_gap']:+6.1f}% median job {100 * c['median_job_gap']:5.1f}%")


if __name__ == "__main__":
    sys.exit(main())
