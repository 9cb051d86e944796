"""How much a placer that knows Gavel's pairs could gain over `standalone` on harmony-testbed.

Analysis for issue 14 (docs/reproduction-harmony.md, "Headroom under gavel"), not a policy of the
toolkit. Two parts:

1. `python3 bench/harmony_gavel_headroom.py` prints the `gavel` interference model's pair factors
   (docs/harmony.md: factor(a, b) = clamp(throughput of a's Gavel job beside b's / alone, floor, 1)
   ^ strength, from data/harmony/gavel-mapping.yaml) and, per pair, factor(a, b) + factor(b, a):
   above 1, two jobs sharing a server train more in total than one after the other.
2. `GavelPairs` (`gavel-pairs`), a heuristic that is given the ground truth a learned placer has to
   learn: each new job goes alone on empty servers as `standalone` does; when it does not fit there,
   it goes whole on one server that holds exactly one other job if both pair factors are at least
   `gavel-pairs.min_factor`; otherwise it waits. Run it beside the baselines:

       dmlkit cluster compare --experiment harmony-testbed --interference gavel \\
           --policies standalone --policy-file bench/harmony_gavel_headroom.py:GavelPairs \\
           --policy-param gavel-pairs.min_factor=0.9

Its result is an "oracle-ish" reference, not a bound: it knows the pairs but not the future.
"""
import json
import os
import re

try:  # the policy needs the toolkit's module; the table alone does not
    import dmlkit
    _Policy, _Knob = dmlkit.cluster.Policy, dmlkit.Knob
except ImportError:
    _Policy, _Knob = object, lambda *a, **k: None

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("DMLKIT_DATA_DIR", os.path.join(HERE, "..", "data"))


def gavel_factors(data_dir=DATA):
    """{(a, b): factor of a's workers beside b's}, for the Harmony types of gavel-mapping.yaml."""
    path = os.path.join(data_dir, "harmony", "gavel-mapping.yaml")
    text = open(path).read()
    strength = float(re.search(r"^strength:\s*([0-9.]+)", text, re.M).group(1))
    floor = float(re.search(r"^floor:\s*([0-9.]+)", text, re.M).group(1))
    gpu = re.search(r"^gpu:\s*(\S+)", text, re.M).group(1)
    types = dict(re.findall(r'^  ([a-z0-9-]+):\s*"([^"]+)"', text, re.M))
    tp = json.load(open(os.path.join(data_dir, "gavel-throughputs", "simulation_throughputs.json")))[gpu]
    out = {}
    for a, ga in types.items():
        entry = tp[str((ga, 1))]
        for b, gb in types.items():
            ratio = entry[str((gb, 1))][0] / entry["null"]
            out[(a, b)] = min(1.0, max(floor, ratio)) ** strength
    return out


HARMONY_TYPES = ["alexnet", "vgg-16", "resnet-50", "resnext-110", "inception-bn", "ctc", "seq2seq", "dssm"]


def harmony_type(job_name):
    """The Harmony type of a generated job's name (ps12-resnext-110, ar3-ctc)."""
    return job_name.split("-", 1)[1]


class GavelPairs(_Policy):
    name = "gavel-pairs"
    summary = "analysis: standalone, else whole on the server of one job whose Gavel pair factors are high"
    ps_jobs = True
    knobs = [_Knob("gavel-pairs.min_factor", 0.9, "co-locate only if both jobs' pair factors are at least this",
                         min=0.0, max=1.01)]

    def __init__(self, options=None):
        super().__init__(options)
        self.f = gavel_factors()

    def schedule(self, view, jobs):
        if view.jobs_unchanged:
            return None
        theta = self.options.knobs["gavel-pairs.min_factor"]
        n = view.num_servers
        cpus, mem, gpus = view.free_cpus.copy(), view.free_mem_gb.copy(), view.free_gpus.copy()
        residents = [[] for _ in range(n)]  # Harmony types of the jobs with tasks on each server
        for i in range(len(jobs)):
            if jobs[i].running:
                for s in jobs[i].placement.servers:
                    residents[s].append(harmony_type(jobs[i].name))
        started = {}
        for i in jobs.iter_waiting():
            job = jobs[i].ps
            tasks = [("ps", job["ps"])] * job["user_ps"] + [("worker", job["worker"])] * job["user_workers"]

            def fits(s, d):
                return cpus[s] >= d["cpus"] and mem[s] >= d["mem_gb"] and gpus[s] >= d["gpus"]

            def take(s, d, sign):
                cpus[s] -= sign * d["cpus"]
                mem[s] -= sign * d["mem_gb"]
                gpus[s] -= sign * d["gpus"]

            # Standalone: empty servers only, own servers first, then the least remaining capacity.
            slices, taken = {}, []
            for kind, d in tasks:
                empty = [s for s in range(n) if not residents[s] and fits(s, d)]
                if not empty:
                    break
                s = min(empty, key=lambda s: (s not in slices, cpus[s] / 32 + mem[s] / 128 + gpus[s] / 4, s))
                take(s, d, 1)
                taken.append((s, d))
                g, w, p = slices.get(s, (0, 0, 0))
                slices[s] = (g + d["gpus"], w + (kind == "worker"), p + (kind == "ps"))
            if len(taken) < len(tasks):
                for s, d in taken:
                    take(s, d, -1)
                slices = {}
                # Else: whole on one server beside exactly one job whose pair factors are high.
                t = harmony_type(jobs[i].name)
                best = None
                for s in range(n):
                    if len(set(residents[s])) != 1:
                        continue
                    r = residents[s][0]
                    if min(self.f[(t, r)], self.f[(r, t)]) < theta:
                        continue
                    need = {k: sum(d[k] for _, d in tasks) for k in ("cpus", "mem_gb", "gpus")}
                    if not fits(s, need):
                        continue
                    score = self.f[(t, r)] + self.f[(r, t)]
                    if best is None or score > best[0]:
                        best = (score, s, need)
                if best is None:
                    continue  # waits
                _, s, need = best
                take(s, need, 1)
                slices[s] = (need["gpus"], job["user_workers"], job["user_ps"])
            for s in slices:
                residents[s].append(harmony_type(jobs[i].name))
            started[i] = [(s, g, w, p) for s, (g, w, p) in sorted(slices.items())]
        return started


def main():
    f = gavel_factors()
    short = [t[:7] for t in HARMONY_TYPES]
    print("factor(row beside column): the row job's worker speed share")
    print("%-13s" % "" + " ".join("%7s" % s for s in short))
    for a in HARMONY_TYPES:
        print("%-13s" % a + " ".join("%7.3f" % f[(a, b)] for b in HARMONY_TYPES))
    print("\nfactor(a, b) + factor(b, a): the pair's total work rate against one after the other (1)")
    print("%-13s" % "" + " ".join("%7s" % s for s in short))
    for a in HARMONY_TYPES:
        print("%-13s" % a + " ".join("%7.3f" % (f[(a, b)] + f[(b, a)]) for b in HARMONY_TYPES))
    pairs = [(min(f[(a, b)], f[(b, a)]), a, b) for i, a in enumerate(HARMONY_TYPES) for b in HARMONY_TYPES[i:]]
    for theta in (0.95, 0.9, 0.85):
        print(f"pairs (of {len(pairs)}) with both factors >= {theta}: {sum(1 for p in pairs if p[0] >= theta)}")


if __name__ == "__main__":
    main()
