"""FIFO for parameter-server jobs in Python: each job gets the (PS, workers) its user asked for.

Waiting jobs in arrival order; a job's user_ps parameter servers and user_workers workers are
placed task by task on the first server (lowest id) with enough free CPUs, memory and GPUs for the
task; a job that does not fit entirely stops the walk (head-of-line blocking). Running jobs are
never preempted. Placements are slices (server, gpus, workers, ps), which the simulator checks
against every server's CPUs, memory and GPUs. A simplified relative of the C++ PS fifo
(policies/ps/ps_fifo_srtf.cpp), written to show a Python policy on the experiment presets:

    dmlkit cluster compare --experiment optimus-testbed --seeds 1 --policies fifo \
        --policy-file examples/ps_fifo.py:PsFifo
"""
import dmlkit


class PsFifo(dmlkit.cluster.Policy):
    name = "py-ps-fifo"
    summary = "parameter-server jobs first come first served with the user's (PS, workers), first fit"
    ps_jobs = True

    def schedule(self, view, jobs):
        if view.jobs_unchanged:
            return None
        cpus, mem, gpus = view.free_cpus, view.free_mem_gb, view.free_gpus.copy()
        started = {}
        for i in jobs.iter_waiting():
            job = jobs[i].ps
            tasks = [("ps", job["ps"])] * job["user_ps"] + [("worker", job["worker"])] * job["user_workers"]
            slices, taken = {}, []
            for kind, d in tasks:
                server = next((s for s in range(view.num_servers) if cpus[s] >= d["cpus"] and mem[s] >= d["mem_gb"]
                               and gpus[s] >= d["gpus"]), None)
                if server is None:
                    break
                cpus[server] -= d["cpus"]
                mem[server] -= d["mem_gb"]
                gpus[server] -= d["gpus"]
                taken.append((server, d))
                g, w, p = slices.get(server, (0, 0, 0))
                slices[server] = (g + d["gpus"], w + (kind == "worker"), p + (kind == "ps"))
            if len(taken) < len(tasks):  # undo, and stop: head-of-line blocking
                for server, d in taken:
                    cpus[server] += d["cpus"]
                    mem[server] += d["mem_gb"]
                    gpus[server] += d["gpus"]
                break
            started[i] = [(s, g, w, p) for s, (g, w, p) in sorted(slices.items())]
        return started
