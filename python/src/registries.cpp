// Every family's registry as plain Python data: name, summary, declared knobs, traits. The same
// tables `dmlkit <family> list -v` prints (core/registry.h).
#include <pybind11/stl.h>

#include "bindings.h"
#include "cluster/oasis/method.h"
#include "cluster/policy.h"
#include "cluster/workload/experiment.h"
#include "comm/scheduler.h"
#include "continual/replay/strategy.h"
#include "core/knobs.h"
#include "influence/algorithm.h"
#include "ps/policy.h"

namespace dmlkit::python {

namespace {

py::dict knob_dict(const KnobSpec& k) {
  py::dict d;
  d["name"] = k.name;
  d["type"] = to_string(k.type);
  d["default"] = k.default_text();
  d["help"] = k.help;
  d["range"] = k.type_text();
  d["choices"] = k.choices;
  return d;
}

template <class Registry, class Extra>
py::list entries(const Registry& registry, Extra extra) {
  py::list out;
  for (const auto& e : registry.entries()) {
    py::dict d;
    d["name"] = e.name;
    d["summary"] = e.summary;
    py::list knobs;
    for (const auto& k : e.knobs) knobs.append(knob_dict(k));
    d["knobs"] = knobs;
    d["python"] = registry.added(e.name);
    extra(e, d);
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_registries(py::module_& m) {
  m.def("cluster_policies", [] {
    return entries(cluster::policy_registry(), [](const cluster::PolicyEntry& e, py::dict& d) {
      d["gpu_jobs"] = e.traits.gpu_jobs;
      d["ps_jobs"] = e.traits.ps_jobs;
      d["ps_variant"] = e.traits.ps_variant;
    });
  });
  m.def(
      "cluster_experiments",
      [](const std::string& dir) {
        py::list out;
        for (const auto& e : cluster::list_experiments(dir.empty() ? cluster::default_experiments_dir() : dir)) {
          py::dict d;
          d["name"] = e.name;
          d["description"] = e.description;
          d["path"] = e.path;
          d["engine"] = e.engine;
          d["cluster"] = e.cluster;
          d["policies"] = e.policies;
          d["seeds"] = e.seeds;
          d["policy_params"] = e.policy_params;
          d["speed_model"] = e.speed_model;
          d["round_s"] = e.round_s;
          d["restart_delay_s"] = e.restart_delay_s;
          out.append(d);
        }
        return out;
      },
      py::arg("dir") = "");
  m.def("oasis_methods", [] {
    return entries(cluster::oasis::oasis_method_registry(), [](const auto& e, py::dict& d) {
      d["admission_control"] = e.traits.admission_control;
    });
  });
  m.def("comm_schedulers", [] {
    return entries(comm::scheduler_registry(), [](const comm::SchedulerEntry& e, py::dict& d) {
      d["ps"] = e.traits.ps;
      d["allreduce"] = e.traits.allreduce;
    });
  });
  m.def("ps_policies", [] { return entries(ps::policy_registry(), [](const auto&, py::dict&) {}); });
  m.def("influence_algorithms", [] { return entries(influence::algorithm_registry(), [](const auto&, py::dict&) {}); });
  m.def("replay_strategies",
        [] { return entries(continual::replay_strategy_registry(), [](const auto&, py::dict&) {}); });
}

}  // namespace dmlkit::python
