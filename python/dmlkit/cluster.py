"""Cluster scheduling: ``simulate``, ``compare`` (also experiment presets: ``compare(experiment=...)``
or ``experiment(name)``), the registry (``policies()``), and policies written in Python.

A Python policy subclasses :class:`Policy` and implements ``schedule(view, jobs)``; the simulator
(and ``dmlkit cluster serve --slurm --policy-file FILE.py:CLASS``) calls it through the seam of the
C++ policies (src/cluster/policy.h)::

    class Fifo(dmlkit.cluster.Policy):
        name = "py-fifo"
        def schedule(self, view, jobs):
            if view.jobs_unchanged:
                return None                      # no change
            free = dmlkit.cluster.FreeGpus(view)
            started = {}
            for i in jobs.iter_waiting():               # arrival order
                p = free.place(jobs[i].num_gpus, self.options.placement)
                if p is None:
                    break
                started[i] = p                   # {job index: placement}
            return started

    dmlkit.cluster.simulate(workload="pollux-6", cluster="16x4", policy=Fifo)
"""
from . import _dmlkit
from ._cli import command
from ._registry import Knob, entries
from ._dmlkit import Placement, FreeGpus, PolicyOptions, ClusterView, Jobs, Job

simulate = command("cluster", "simulate")
compare = command("cluster", "compare")


def experiment(name, **options):
    """Runs an experiment preset (``dmlkit cluster compare --experiment NAME``)."""
    return compare(experiment=name, **options)


def experiments(dir=None):
    """The experiment presets (``dmlkit cluster experiments -v``): a list of dicts (name,
    description, path, engine, cluster, policies, seeds, policy_params, speed_model, round_s,
    restart_delay_s)."""
    return _dmlkit.cluster_experiments(str(dir) if dir else "")


def policies(engine="sim"):
    """The registered policies (built-in and Python) with their summaries, knobs and traits;
    engine="oasis": the methods of the OASiS model."""
    return entries(_dmlkit.oasis_methods() if engine == "oasis" else _dmlkit.cluster_policies())


class Policy:
    """Base of cluster policies written in Python.

    Class attributes: ``name`` (registry name; default: the class name), ``summary``, ``knobs``
    (a list of :class:`dmlkit.Knob`, set with ``policy_param={"name.key": value}`` /
    ``--policy-param``), ``ps_jobs`` (schedules parameter-server jobs), ``charges_restarts``,
    ``ps_assignment``. ``self.options`` (a PolicyOptions: profile, placement, seed, knobs) is set
    before the first call.

    ``schedule(view, jobs)`` returns None (nothing changes), a dict {job index: placement} (only
    these change) or a list with one placement per job; a placement is a :class:`Placement`, a list
    of (server, gpus) tuples, or [] / None (not running). Define ``next_wakeup_s(view, jobs)`` to be
    called again at a time of your choosing (absolute seconds; None: no wake-up)."""

    name = None
    summary = "a policy written in Python"
    knobs = []
    ps_jobs = False
    charges_restarts = True
    ps_assignment = "mxnet"
    next_wakeup_s = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__ or cls.__dict__["name"] is None:
            cls.name = cls.__name__

    def __init__(self, options=None):
        self.options = options

    def schedule(self, view, jobs):
        raise NotImplementedError(f"{type(self).__name__}.schedule")


def register(cls):
    """Registers a Policy subclass under ``cls.name`` (usable as a decorator). A class passed as
    ``policy=`` / ``policies=[...]`` is registered automatically."""
    if not (isinstance(cls, type) and issubclass(cls, Policy)):
        raise TypeError("register() takes a dmlkit.cluster.Policy subclass")
    _dmlkit.register_cluster_policy(cls)
    return cls


__all__ = ["simulate", "compare", "experiment", "experiments", "policies", "Policy", "register", "Knob",
           "Placement", "FreeGpus", "PolicyOptions", "ClusterView", "Jobs", "Job"]
