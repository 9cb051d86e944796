"""FIFO in Python: first come, first served with gang scheduling, no preemption.

The same algorithm as the C++ `fifo` (src/cluster/policies/gpu/fifo.cpp), written against the
Python view of the same seam, so its results are identical (tests/test_examples.py checks every
job on pollux-6, cluster 16x4):
  - running jobs keep their placement;
  - waiting jobs, in arrival order, get their full request placed with the run's placement kind
    (dmlkit.cluster.FreeGpus.place: the C++ placement code) or nothing;
  - the first job that does not fit stops the walk (head-of-line blocking) unless
    py-fifo.backfill=true.
Only the jobs it starts are returned ({job index: placement}), and a decision whose input did not
change (view.jobs_unchanged) returns None at once: the simulator then checks and applies nothing.

    dmlkit cluster simulate --workload pollux-6 --cluster 16x4 --policy-file examples/fifo.py:Fifo
"""
import dmlkit


class Fifo(dmlkit.cluster.Policy):
    name = "py-fifo"
    summary = "first come first served, gang, no preemption (the C++ fifo, in Python)"
    knobs = [dmlkit.Knob("py-fifo.backfill", False, "let later waiting jobs that fit start past a blocked head")]

    def schedule(self, view, jobs):
        if view.jobs_unchanged:
            return None  # stateless: the previous decision stands
        free = dmlkit.cluster.FreeGpus(view)
        backfill = self.options.knobs["py-fifo.backfill"]
        started = {}
        for i in jobs.iter_waiting():  # indices of the waiting jobs, in arrival order, as the walk goes
            if free.total == 0:
                break
            placement = free.place(max(1, jobs[i].num_gpus), self.options.placement)
            if placement is not None:
                started[i] = placement
            elif not backfill:
                break
        return started
