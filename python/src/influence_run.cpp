// dmlkit.influence.run in-process: influence::RunSpec and RunOutput (influence/run.h) as Python
// classes. The run needs no folder; RunOutput.write(path) writes one when asked.
#include <pybind11/stl.h>

#include <filesystem>

#include "bindings.h"
#include "core/output_dir.h"
#include "influence/run.h"

namespace dmlkit::python {

namespace inf = dmlkit::influence;

void bind_influence_run(py::module_& m) {
  py::class_<inf::RunSpec>(m, "InfluenceRunSpec",
                           "influence::RunSpec (src/influence/run.h): every field documented there")
      .def(py::init<>())
      .def_readwrite("graph", &inf::RunSpec::graph)
      .def_readwrite("graph_format", &inf::RunSpec::graph_format)
      .def_readwrite("max_nodes", &inf::RunSpec::max_nodes)
      .def_readwrite("data_dir", &inf::RunSpec::data_dir)
      .def_readwrite("dynamics", &inf::RunSpec::dynamics)
      .def_readwrite("k", &inf::RunSpec::k)
      .def_readwrite("steps", &inf::RunSpec::steps)
      .def_readwrite("runs", &inf::RunSpec::runs)
      .def_readwrite("seed", &inf::RunSpec::seed)
      .def_readwrite("algorithms", &inf::RunSpec::algorithms)
      .def_readwrite("algorithm_params", &inf::RunSpec::algorithm_params)
      .def_readwrite("trivalency_levels", &inf::RunSpec::trivalency_levels)
      .def_readwrite("fr_max", &inf::RunSpec::fr_max)
      .def_readwrite("fr_swing", &inf::RunSpec::fr_swing)
      .def_readwrite("edge_churn", &inf::RunSpec::edge_churn)
      .def_readwrite("edge_presence", &inf::RunSpec::edge_presence)
      .def_readwrite("node_churn", &inf::RunSpec::node_churn)
      .def_readwrite("node_presence", &inf::RunSpec::node_presence)
      .def_readwrite("best_fixed", &inf::RunSpec::best_fixed)
      .def_readwrite("hindsight_rr_sets", &inf::RunSpec::hindsight_rr_sets);
  py::class_<inf::RunOutput>(m, "InfluenceRunOutput", "What influence::run returns (src/influence/run.h)")
      .def("results_json", [](const inf::RunOutput& o) { return o.results.json_text(); })
      .def(
          "tables",
          [](const inf::RunOutput& o) {
            py::dict d;
            d["records.csv"] = o.results.records_table().to_csv();
            d["summary.csv"] = o.results.summary_table().to_csv();
            d["steps.csv"] = o.steps.to_csv();
            d["runs.csv"] = o.runs.to_csv();
            return d;
          },
          "the CSV tables of the output folder by file name, as text")
      .def("summary_text", &inf::RunOutput::summary_text, py::arg("format") = "table")
      .def_readonly("notes", &inf::RunOutput::notes)
      .def(
          "write",
          [](const inf::RunOutput& o, const std::string& path) {
            OutputDir out(path);
            o.write(out);
            return std::filesystem::absolute(out.commit()).lexically_normal().string();
          },
          py::arg("path"), "writes the output folder (results.json, CSVs, report.html); returns its path");
  m.def("influence_check", &inf::check, py::arg("spec"), "Error naming the field unless the spec is valid");
  m.def(
      "influence_run",
      [](const inf::RunSpec& spec) {
        py::gil_scoped_release release;  // Python algorithms take the GIL when called
        return inf::run(spec);
      },
      py::arg("spec"));
  py::list named;
  for (const auto& k : inf::named_knobs()) named.append(py::make_tuple(k.option, k.knob));
  m.attr("influence_named_knobs") = named;
}

}  // namespace dmlkit::python
