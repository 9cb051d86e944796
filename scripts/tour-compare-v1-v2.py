#!/usr/bin/env python3
"""Compares a README-tour folder written with schema_version 1 (before issue 11) with one written
with schema_version 2: every metric value must be identical (==, not approximately)."""
import json, sys, os, filecmp
before, after = sys.argv[1], sys.argv[2]
bad = 0
checked = 0
def eq(what, a, b):
    global bad, checked
    checked += 1
    if a != b:
        bad += 1
        print(f"DIFF {what}: {a!r} != {b!r}")
def load(d, name): return json.load(open(os.path.join(d, name, "results.json")))
def same_file(what, fa, fb):
    global bad, checked
    checked += 1
    if not filecmp.cmp(fa, fb, shallow=False):
        bad += 1; print(f"DIFF file {what}")

for name in ["simulate-tiresias", "compare-ref", "philly-fifo", "demo"]:
    o, n = load(before, name), load(after, name)
    seed = o["inputs"]["seed"]
    eq(f"{name} seeds", [seed], n["inputs"]["seeds"])
    for k in o["inputs"]:
        if k != "seed": eq(f"{name} inputs.{k}", o["inputs"][k], n["inputs"][k])
    eq(f"{name} #records", len(o["records"]), len(n["records"]))
    for r, s in zip(o["records"], n["records"]):
        eq(f"{name} name", r["policy"], s["name"])
        eq(f"{name} timed_out", r["timed_out"], s["metrics"]["timed_out"])
        for k, v in r["metrics"].items(): eq(f"{name} {r['policy']}.{k}", v, s["metrics"][k])
        for kind in ["jobs", "rounds"]:
            same_file(f"{name} {kind} {r['policy']}", os.path.join(before, name, f"{kind}-{r['policy']}.csv"),
                      os.path.join(after, name, f"{kind}-{r['policy']}-seed{seed}.csv"))

o, n = load(before, "optimus-testbed"), load(after, "optimus-testbed")
for k in o["inputs"]: eq(f"optimus inputs.{k}", o["inputs"][k], n["inputs"][k])
eq("optimus #records", len(o["records"]), len(n["records"]))
for r, s in zip(o["records"], n["records"]):
    eq("optimus name", (r["policy"], r["seed"]), (s["name"], s["seed"]))
    eq("optimus timed_out", r["timed_out"], s["metrics"]["timed_out"])
    for k, v in r["metrics"].items(): eq(f"optimus {r['policy']}/{r['seed']}.{k}", v, s["metrics"][k])
for a, b in zip(o["summary"], n["summary"]):
    eq("optimus summary name", a["policy"], b["name"])
    for m in ["avg_jct_s", "makespan_s"]:
        for st in ["mean", "sd", "min", "max"]: eq(f"optimus summary {a['policy']}.{m}.{st}", a[m][st], b["metrics"][m][st])
    eq("optimus finished", a["finished"], round(b["metrics"]["finished"]["mean"] * b["runs"]))
    eq("optimus timed_out_runs", a["timed_out_runs"], round(b["metrics"]["timed_out"]["mean"] * b["runs"]))

o, n = load(before, "comm-compare"), load(after, "comm-compare")
for k in ["compute_s", "gradient_bytes", "tensors", "comm_bound_s", "lower_bound_s"]: eq(f"comm {k}", o[k], n["derived"][k])
for r, s in zip(o["records"], n["records"]):
    eq("comm name", r["scheduler"], s["name"])
    eq("comm iteration_s", r["iteration_s"], s["detail"]["iteration_s"])
    for k in ["iteration_mean_s", "speedup_over_fifo", "distance_to_lower_bound", "overlap", "comm_busy_s", "max_in_flight_bytes", "transfers"]:
        eq(f"comm {r['scheduler']}.{k}", r.get(k), s["metrics"][k])
    same_file(f"comm timeline {r['scheduler']}", os.path.join(before, "comm-compare", f"timeline-{r['scheduler']}.csv"), os.path.join(after, "comm-compare", f"timeline-{r['scheduler']}.csv"))

o, n = load(before, "comm-tune"), load(after, "comm-tune")
rec = {r["name"]: r for r in n["records"]}
eq("tune default", o["default_iteration_s"], rec["default"]["metrics"]["iteration_s"])
eq("tune lb", o["lower_bound_s"], n["derived"]["lower_bound_s"])
eq("tune gap", o.get("bayes_gap_to_grid"), n["derived"].get("bayes_gap_to_grid"))
for m in ["bayes", "grid"]:
    if m not in o: continue
    eq(f"tune {m} best", o[m]["best_iteration_s"], rec[m]["metrics"]["iteration_s"])
    eq(f"tune {m} best_index", o[m]["best_index"], rec[m]["metrics"]["best_index"])
    eq(f"tune {m} probes", o[m]["probes"], rec[m]["detail"]["probes"])
    same_file(f"tune probes {m}", os.path.join(before, "comm-tune", f"probes-{m}.csv"), os.path.join(after, "comm-tune", f"probes-{m}.csv"))

o, n = load(before, "influence-rsb"), load(after, "influence-rsb")
for k in o["inputs"]: eq(f"influence inputs.{k}", o["inputs"][k], n["inputs"][k])
eq("influence nodes", o["mean_present_nodes"], n["derived"]["mean_present_nodes"])
eq("influence edges", o["mean_present_edges"], n["derived"]["mean_present_edges"])
eq("influence best_fixed_seeds", o.get("best_fixed_seeds"), n["derived"].get("best_fixed_seeds"))
summ = {g["name"]: g for g in n["summary"]}
der = {a["name"]: a for a in n["derived"]["algorithms"]}
for r in o["records"]:
    a = r["algorithm"]; m = r["metrics"]; g = summ[a]["metrics"]
    eq(f"influence {a} total mean", m["total_activated_mean"], g["total_activated"]["mean"])
    eq(f"influence {a} total sd", m["total_activated_stddev"], g["total_activated"]["sd"])
    eq(f"influence {a} per step", m["activated_per_step_mean"], der[a]["activated_per_step_mean"])
    eq(f"influence {a} growth", m["regret_fixed_growth_exponent"], der[a]["regret_fixed_growth_exponent"])
    eq(f"influence {a} reference", r["reference"], der[a]["reference"])
    for x in ["oracle", "fixed"]:
        if f"regret_{x}_final_mean" in m:
            eq(f"influence {a} regret_{x} mean", m[f"regret_{x}_final_mean"], g[f"regret_{x}_final"]["mean"])
            eq(f"influence {a} regret_{x} sd", m[f"regret_{x}_final_stddev"], g[f"regret_{x}_final"]["sd"])
    eq(f"influence {a} curves", r["curves"], der[a]["curves"])
for f in ["steps.csv", "runs.csv"]: same_file(f"influence {f}", os.path.join(before, "influence-rsb", f), os.path.join(after, "influence-rsb", f))

o, n = load(before, "continual-sweep"), load(after, "continual-sweep")
for k in o["config"]: eq(f"sweep config.{k}", o["config"][k], n["inputs"][k])
eq("sweep task1", o["task1"], n["derived"]["task1"])
eq("sweep variants", o["variants"], n["derived"]["variants"])
eq("sweep #groups", len(o["records"]), len(n["summary"]))
for r, g in zip(o["records"], n["summary"]):
    eq("sweep key", (r["variant"], r["angle_deg"]), (g["name"], g["params"]["angle_deg"]))
    eq("sweep runs", r["runs"], g["runs"])
    m = g["metrics"]
    eq("sweep err mean", r["task1_error_mean"], m["task1_error"]["mean"])
    eq("sweep err std", r["task1_error_std"], m["task1_error"]["sd"])
    eq("sweep err min", r["task1_error_min"], m["task1_error"]["min"])
    eq("sweep err max", r["task1_error_max"], m["task1_error"]["max"])
    eq("sweep forgetting", r["forgetting_mean"], m["forgetting"]["mean"])
    eq("sweep task2", r["task2_error_mean"], m["task2_error"]["mean"])
    eq("sweep diverged", r["diverged_runs"], round(m["diverged"]["mean"] * g["runs"]))
same_file("sweep critical_angles.csv", os.path.join(before, "continual-sweep", "critical_angles.csv"), os.path.join(after, "continual-sweep", "critical_angles.csv"))

o, n = load(before, "continual-replay"), load(after, "continual-replay")
for k in o["config"]: eq(f"replay config.{k}", o["config"][k], n["inputs"][k])
eq("replay task angles", o["task_angles_deg"], n["derived"]["task_angles_deg"])
for r, g in zip(o["records"], n["summary"]):
    eq("replay key", (r["strategy"], r["buffer_size"]), (g["name"], g["params"]["buffer_size"]))
    eq("replay runs", r["runs"], g["runs"])
    m = g["metrics"]
    eq("replay old mean", r["old_task_accuracy_mean"], m["old_task_accuracy"]["mean"])
    eq("replay old std", r["old_task_accuracy_std"], m["old_task_accuracy"]["sd"])
    eq("replay forg mean", r["average_forgetting_mean"], m["average_forgetting"]["mean"])
    eq("replay forg std", r["average_forgetting_std"], m["average_forgetting"]["sd"])
    eq("replay last", r["last_task_accuracy_mean"], m["last_task_accuracy"]["mean"])
same_file("replay task_angles.csv", os.path.join(before, "continual-replay", "task_angles.csv"), os.path.join(after, "continual-replay", "task_angles.csv"))
print(f"{checked} values/files compared, {bad} differ")
sys.exit(1 if bad else 0)
