// The run entries of the iteration-level families in-process: comm (comm/run.h: RunSpec, TuneSpec),
// ps (ps/compare.h: CompareSpec) and gnn (gnn/compare.h: CompareOptions) as Python classes with
// their fields, and run functions returning the run's output (comm::RunOutput) without writing
// anything; RunOutput.write(path) writes the output folder the CLI writes. python/dmlkit/comm.py,
// ps.py and gnn.py build the specs from keyword arguments.
#include <pybind11/stl.h>

#include <string>

#include "bindings.h"
#include "comm/network.h"
#include "comm/run.h"
#include "core/output_dir.h"
#include "gnn/compare.h"
#include "ps/compare.h"

namespace dmlkit::python {

namespace {

void bind_training_fields(py::class_<comm::TrainingSpec>& c) {
  c.def(py::init<>())
      .def_readwrite("model", &comm::TrainingSpec::model)
      .def_readwrite("tensors", &comm::TrainingSpec::tensors)
      .def_readwrite("arch", &comm::TrainingSpec::arch)
      .def_readwrite("workers", &comm::TrainingSpec::workers)
      .def_readwrite("servers", &comm::TrainingSpec::servers)
      .def_readwrite("bandwidth", &comm::TrainingSpec::bandwidth)
      .def_readwrite("latency_us", &comm::TrainingSpec::latency_us)
      .def_readwrite("switch_bandwidth", &comm::TrainingSpec::switch_bandwidth)
      .def_readwrite("racks", &comm::TrainingSpec::racks)
      .def_readwrite("uplink_bandwidth", &comm::TrainingSpec::uplink_bandwidth)
      .def_readwrite("op_overhead_us", &comm::TrainingSpec::op_overhead_us)
      .def_readwrite("ring_stepwise", &comm::TrainingSpec::ring_stepwise)
      .def_readwrite("compute_scale", &comm::TrainingSpec::compute_scale)
      .def_readwrite("slow_workers", &comm::TrainingSpec::slow_workers)
      .def_readwrite("slow_links", &comm::TrainingSpec::slow_links)
      .def_readwrite("batch", &comm::TrainingSpec::batch)
      .def_readwrite("iterations", &comm::TrainingSpec::iterations)
      .def_readwrite("warmup", &comm::TrainingSpec::warmup)
      .def_readwrite("data_dir", &comm::TrainingSpec::data_dir)
      .def_readwrite("graph_dir", &comm::TrainingSpec::graph_dir);
}

void bind_comm(py::module_& m) {
  py::class_<comm::TrainingSpec> training(m, "TrainingSpec", "comm/run.h: one training job on one network");
  bind_training_fields(training);
  py::class_<comm::RunSpec, comm::TrainingSpec>(m, "CommRunSpec", "comm/run.h: comm simulate / compare")
      .def(py::init<>())
      .def_readwrite("command", &comm::RunSpec::command)
      .def_readwrite("schedulers", &comm::RunSpec::schedulers)
      .def_readwrite("scheduler_params", &comm::RunSpec::scheduler_params)
      .def_readwrite("seed", &comm::RunSpec::seed);
  py::class_<comm::TuneSpec, comm::TrainingSpec>(m, "CommTuneSpec", "comm/run.h: comm tune")
      .def(py::init<>())
      .def_readwrite("scheduler", &comm::TuneSpec::scheduler)
      .def_readwrite("probes", &comm::TuneSpec::probes)
      .def_readwrite("initial", &comm::TuneSpec::initial)
      .def_readwrite("grid", &comm::TuneSpec::grid)
      .def_readwrite("scheduler_params", &comm::TuneSpec::scheduler_params)
      .def_readwrite("seed", &comm::TuneSpec::seed);
  py::class_<comm::RunOutput>(m, "RunOutput", "comm/run.h: what a run returns (nothing written)")
      .def("results_json", [](const comm::RunOutput& o) { return o.results.json_text(); })
      .def("tables",
           [](const comm::RunOutput& o) {
             py::dict d;
             d["records.csv"] = o.results.records_table().to_csv();
             d["summary.csv"] = o.results.summary_table().to_csv();
             for (const auto& [name, content] : o.files) d[py::str(name)] = content;
             return d;
           })
      .def("text",
           [](const comm::RunOutput& o, const std::string& format) {
             if (format == "json") return o.results.json_text();
             if (format == "csv") return o.summary.to_csv();
             return o.before_table + o.summary.render() + o.after_table;
           })
      .def_readonly("notes", &comm::RunOutput::notes)
      .def("write",
           [](const comm::RunOutput& o, const std::string& path) {
             OutputDir dir(path);
             o.write(dir);
             return dir.commit();
           })
      .def("trace_json", [](const comm::RunOutput& o) { return o.trace.json_text(); });
  m.def("comm_check", [](const comm::RunSpec& s) { (void)comm::check(s); });
  m.def("comm_run", [](const comm::RunSpec& s) { return comm::run(s); });
  m.def("comm_tune", [](const comm::TuneSpec& s) { return comm::run(s); });
  m.def("parse_bandwidth", &comm::parse_bandwidth, py::arg("text"), py::arg("field") = "bandwidth");
}

void bind_ps(py::module_& m) {
  py::class_<ps::CompareSpec, comm::TrainingSpec>(m, "PsCompareSpec", "ps/compare.h: ps compare")
      .def(py::init<>())
      .def_readwrite("policies", &ps::CompareSpec::policies)
      .def_readwrite("policy_params", &ps::CompareSpec::policy_params)
      .def_readwrite("stragglers", &ps::CompareSpec::stragglers)
      .def_readwrite("server_GBps", &ps::CompareSpec::server_GBps)
      .def_readwrite("seed", &ps::CompareSpec::seed);
  m.def("ps_compare", [](const ps::CompareSpec& s) { return ps::run(s); });
}

void bind_gnn(py::module_& m) {
  py::class_<gnn::ClusterOptions>(m, "GnnClusterOptions", "gnn/cluster.h")
      .def(py::init<>())
      .def_readwrite("machines", &gnn::ClusterOptions::machines)
      .def_readwrite("devices", &gnn::ClusterOptions::devices)
      .def_readwrite("gpus_per_machine", &gnn::ClusterOptions::gpus_per_machine)
      .def_readwrite("cores", &gnn::ClusterOptions::cores)
      .def_readwrite("memory_GB", &gnn::ClusterOptions::memory_GB)
      .def_readwrite("nic_Bps", &gnn::ClusterOptions::nic_Bps)
      .def_readwrite("slow_nics", &gnn::ClusterOptions::slow_nics)
      .def_readwrite("racks", &gnn::ClusterOptions::racks)
      .def_readwrite("uplink_Bps", &gnn::ClusterOptions::uplink_Bps)
      .def_readwrite("latency_s", &gnn::ClusterOptions::latency_s)
      .def_readwrite("store_machines", &gnn::ClusterOptions::store_machines)
      .def_readwrite("speed_model", &gnn::ClusterOptions::speed_model)
      .def_readwrite("gavel_path", &gnn::ClusterOptions::gavel_path);
  py::class_<gnn::SamplerConfig>(m, "GnnSamplerConfig", "gnn/sampler.h")
      .def(py::init<>())
      .def_readwrite("fanouts", &gnn::SamplerConfig::fanouts)
      .def_readwrite("batch", &gnn::SamplerConfig::batch)
      .def_readwrite("train_fraction", &gnn::SamplerConfig::train_fraction);
  py::class_<gnn::JobConfig>(m, "GnnJobConfig", "gnn/job.h")
      .def(py::init<>())
      .def_readwrite("feature_dim", &gnn::JobConfig::feature_dim)
      .def_readwrite("bytes_per_feature", &gnn::JobConfig::bytes_per_feature)
      .def_readwrite("hidden", &gnn::JobConfig::hidden)
      .def_readwrite("classes", &gnn::JobConfig::classes)
      .def_readwrite("v100_TFLOPS", &gnn::JobConfig::v100_TFLOPS)
      .def_readwrite("overhead_s", &gnn::JobConfig::overhead_s)
      .def_readwrite("pcie_Bps", &gnn::JobConfig::pcie_Bps)
      .def_readwrite("sample_s_per_edge", &gnn::JobConfig::sample_s_per_edge)
      .def_readwrite("sampler_threads", &gnn::JobConfig::sampler_threads)
      .def_readwrite("trainer_cores", &gnn::JobConfig::trainer_cores)
      .def_readwrite("trainers_per_partition", &gnn::JobConfig::trainers_per_partition)
      .def_property(
          "sync", [](const gnn::JobConfig& j) { return gnn::to_string(j.sync); },
          [](gnn::JobConfig& j, const std::string& s) { j.sync = gnn::parse_sync(s); })
      .def_readwrite("ps_servers", &gnn::JobConfig::ps_servers)
      .def_readwrite("prefetch", &gnn::JobConfig::prefetch);
  py::class_<gnn::CompareOptions>(m, "GnnCompareSpec", "gnn/compare.h: gnn compare")
      .def(py::init<>())
      .def_readwrite("graph", &gnn::CompareOptions::graph)
      .def_readwrite("graph_format", &gnn::CompareOptions::graph_format)
      .def_readwrite("max_nodes", &gnn::CompareOptions::max_nodes)
      .def_readwrite("partitions", &gnn::CompareOptions::partitions)
      .def_readwrite("partitioner", &gnn::CompareOptions::partitioner)
      .def_readwrite("cluster", &gnn::CompareOptions::cluster)
      .def_readwrite("sampler", &gnn::CompareOptions::sampler)
      .def_readwrite("job", &gnn::CompareOptions::job)
      .def_readwrite("epochs", &gnn::CompareOptions::epochs)
      .def_readwrite("sim_iterations", &gnn::CompareOptions::sim_iterations)
      .def_readwrite("warmup", &gnn::CompareOptions::warmup)
      .def_readwrite("cooldown", &gnn::CompareOptions::cooldown)
      .def_readwrite("gantt_iterations", &gnn::CompareOptions::gantt_iterations)
      .def_readwrite("placements", &gnn::CompareOptions::placements)
      .def_readwrite("schedulers", &gnn::CompareOptions::schedulers)
      .def_readwrite("placement_params", &gnn::CompareOptions::placement_params)
      .def_readwrite("scheduler_params", &gnn::CompareOptions::scheduler_params)
      .def_readwrite("partitioner_params", &gnn::CompareOptions::partitioner_params)
      .def_readwrite("seed", &gnn::CompareOptions::seed)
      .def_readwrite("threads", &gnn::CompareOptions::threads)
      .def_readwrite("data_dir", &gnn::CompareOptions::data_dir);
  m.def("gnn_compare", [](const gnn::CompareOptions& s) { return gnn::run(s); });
}

}  // namespace

void bind_iteration_runs(py::module_& m) {
  bind_comm(m);
  bind_ps(m);
  bind_gnn(m);
}

}  // namespace dmlkit::python
