"""Shortest job first in Python: non-preemptive, by the oracle's remaining time.

Waiting jobs are started in increasing order of their remaining time at their requested GPU count
(the simulator's oracle, as the clairvoyant C++ policies srtf and tetris use); each gets its full
request or is skipped (every job that fits starts: no head-of-line blocking). Running jobs are never
preempted (the C++ `srtf` is the preemptive variant). Ties keep arrival order.

    dmlkit cluster compare --workload pollux-6 --cluster 16x4 --policies fifo,srtf \
        --policy-file examples/sjf.py:ShortestJobFirst
"""
import numpy as np

import dmlkit


class ShortestJobFirst(dmlkit.cluster.Policy):
    name = "py-sjf"
    summary = "shortest job first (oracle remaining time), non-preemptive, skips jobs that do not fit"

    def schedule(self, view, jobs):
        if view.jobs_unchanged:
            return None
        waiting = jobs.waiting
        if len(waiting) == 0:
            return None
        free = dmlkit.cluster.FreeGpus(view)
        remaining = jobs.remaining_time_s()[waiting]
        started = {}
        for i in waiting[np.argsort(remaining, kind="stable")]:
            if free.total == 0:
                break
            placement = free.place(int(jobs.num_gpus[i]), self.options.placement)
            if placement is not None:
                started[int(i)] = placement
        return started
