// The cluster family's run entry in-process (cluster/run.h): dmlkit.cluster.simulate, compare and
// experiment build a spec (ClusterRunSpec, ClusterExperimentSpec), run it with the GIL released
// (Python policies take it back), and get a ClusterRunOutput: results.json's text, the printed
// summary and each detail table on demand. Nothing is written unless write() is called.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "cluster/report/results.h"
#include "cluster/run.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/provenance.h"

namespace dmlkit::python {

namespace {

namespace cl = dmlkit::cluster;

// A run's output as Python sees it: one class for a workload run and a preset run.
class RunHandle {
 public:
  explicit RunHandle(cl::RunOutput run) : run_(std::make_shared<cl::RunOutput>(std::move(run))) {}
  explicit RunHandle(cl::ExperimentOutput exp) : exp_(std::make_shared<cl::ExperimentOutput>(std::move(exp))) {}

  std::string results_json() const { return run_ ? run_->results.json_text() : exp_->results.json_text(); }
  std::string summary(const std::string& format) const { return run_ ? run_->summary(format) : exp_->summary(format); }
  // A detail table (jobs-fifo-seed1.csv) as CSV text; Error if the run has none of that name.
  std::string file(const std::string& name) const {
    const Results& res = run_ ? run_->results : exp_->results;
    if (name == "records.csv") return res.records_table().to_csv();
    if (name == "summary.csv") return res.summary_table().to_csv();
    if (run_) {
      if (auto text = run_->detail_file(name)) return *text;
    } else {
      for (const auto& f : exp_->files)
        if (f.name == name) return f.content;
    }
    throw Error(name + ": no such table in this run");
  }
  // Writes the placement trace (RunSpec::record_placements) to `path`; returns its absolute path.
  std::string write_trace(const std::string& path) const {
    if (!run_) throw Error("--trace: an experiment preset has no trace");
    write_file_atomic(path, run_->trace().json_text());
    return std::filesystem::absolute(path).lexically_normal().string();
  }
  // Writes the output folder as the CLI does (results.json with `argv` as its invocation); returns
  // its absolute path.
  std::string write(const std::string& path, const std::vector<std::string>& argv) const {
    if (!argv.empty()) begin_invocation(argv);
    OutputDir out(path);
    if (run_)
      run_->write(out);
    else
      exp_->write(out);
    return std::filesystem::absolute(out.commit()).lexically_normal().string();
  }

 private:
  std::shared_ptr<cl::RunOutput> run_;
  std::shared_ptr<cl::ExperimentOutput> exp_;
};

// Runs `fn` without the GIL; a failure that is not the toolkit's Error becomes one, worded as the
// CLI words it ("internal error: ...").
template <class Fn>
auto without_gil(Fn fn) {
  py::gil_scoped_release release;
  try {
    return fn();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {
    throw Error(std::string("internal error: ") + e.what());
  }
}

void bind_specs(py::module_& m) {
  py::class_<cl::RunSpec>(m, "ClusterRunSpec", "cluster/run.h RunSpec: one workload, one or more policies")
      .def(py::init<>())
      .def_readwrite("command", &cl::RunSpec::command)
      .def_readwrite("workload", &cl::RunSpec::workload)
      .def_readwrite("cluster", &cl::RunSpec::cluster)
      .def_readwrite("policies", &cl::RunSpec::policies)
      .def_readwrite("profile", &cl::RunSpec::profile)
      .def_readwrite("placement", &cl::RunSpec::placement)
      .def_readwrite("policy_params", &cl::RunSpec::policy_params)
      .def_readwrite("round_s", &cl::RunSpec::round_s)
      .def_readwrite("restart_delay_s", &cl::RunSpec::restart_delay_s)
      .def_readwrite("event_replan", &cl::RunSpec::event_replan)
      .def_readwrite("free_first_start", &cl::RunSpec::free_first_start)
      .def_readwrite("extra_server_slowdown", &cl::RunSpec::extra_server_slowdown)
      .def_readwrite("interference", &cl::RunSpec::interference)
      .def_readwrite("interference_file", &cl::RunSpec::interference_file)
      .def_readwrite("drop_oversized", &cl::RunSpec::drop_oversized)
      .def_readwrite("window_start_s", &cl::RunSpec::window_start_s)
      .def_readwrite("window_end_s", &cl::RunSpec::window_end_s)
      .def_readwrite("virtual_clusters", &cl::RunSpec::virtual_clusters)
      .def_readwrite("synthetic_jobs", &cl::RunSpec::synthetic_jobs)
      .def_readwrite("max_jobs", &cl::RunSpec::max_jobs)
      .def_readwrite("calibration", &cl::RunSpec::calibration)
      .def_readwrite("calibration_time_scale", &cl::RunSpec::calibration_time_scale)
      .def_readwrite("calibration_statistic", &cl::RunSpec::calibration_statistic)
      .def_readwrite("seed", &cl::RunSpec::seed)
      .def_readwrite("threads", &cl::RunSpec::threads)
      .def_readwrite("record_placements", &cl::RunSpec::record_placements)
      .def_readwrite("data_dir", &cl::RunSpec::data_dir);
  py::class_<cl::ExperimentSpec>(m, "ClusterExperimentSpec", "cluster/run.h ExperimentSpec: a preset over its seeds")
      .def(py::init<>())
      .def_readwrite("experiment", &cl::ExperimentSpec::experiment)
      .def_readwrite("experiments_dir", &cl::ExperimentSpec::experiments_dir)
      .def_readwrite("policies", &cl::ExperimentSpec::policies)
      .def_readwrite("seeds", &cl::ExperimentSpec::seeds)
      .def_readwrite("policy_params", &cl::ExperimentSpec::policy_params)
      .def_readwrite("interference", &cl::ExperimentSpec::interference)
      .def_readwrite("interference_file", &cl::ExperimentSpec::interference_file)
      .def_readwrite("extra_policies", &cl::ExperimentSpec::extra_policies)
      .def_readwrite("threads", &cl::ExperimentSpec::threads)
      .def_readwrite("data_dir", &cl::ExperimentSpec::data_dir);
}

}  // namespace

void bind_cluster_run(py::module_& m) {
  bind_specs(m);
  py::class_<RunHandle>(m, "ClusterRunOutput", "What cluster/run.h's run() returned, kept in memory")
      .def("results_json", &RunHandle::results_json)
      .def("summary", &RunHandle::summary, py::arg("format") = "table")
      .def("file", &RunHandle::file, py::arg("name"))
      .def(
          "write_trace",
          [](const RunHandle& h, const std::string& path) { return without_gil([&] { return h.write_trace(path); }); },
          py::arg("path"))
      .def(
          "write",
          [](const RunHandle& h, const std::string& path, const std::vector<std::string>& argv) {
            return without_gil([&] { return h.write(path, argv); });
          },
          py::arg("path"), py::arg("argv") = std::vector<std::string>{});
  m.def(
      "cluster_check", [](const cl::RunSpec& spec) { without_gil([&] { cl::check(spec); }); }, py::arg("spec"));
  m.def(
      "cluster_run", [](const cl::RunSpec& spec) { return without_gil([&] { return RunHandle(cl::run(spec)); }); },
      py::arg("spec"), "Runs the spec (cluster/run.h) in-process; writes nothing.");
  m.def(
      "cluster_experiment_check", [](const cl::ExperimentSpec& spec) { without_gil([&] { cl::check(spec); }); },
      py::arg("spec"));
  m.def(
      "cluster_experiment_run",
      [](const cl::ExperimentSpec& spec) { return without_gil([&] { return RunHandle(cl::run(spec)); }); },
      py::arg("spec"), "Runs the experiment preset (cluster/run.h) in-process; writes nothing.");
}

}  // namespace dmlkit::python
