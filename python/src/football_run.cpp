// dmlkit.football in-process: the specs and outputs of football/run.h as Python classes. Runs need
// no folder; an output's write(path) writes one when asked.
#include <pybind11/stl.h>

#include <filesystem>

#include "bindings.h"
#include "core/output_dir.h"
#include "football/run.h"

namespace dmlkit::python {

namespace fb = dmlkit::football;

namespace {

std::string committed(OutputDir& out) { return std::filesystem::absolute(out.commit()).lexically_normal().string(); }

template <class Output>
py::dict results_tables(const Output& o) {
  py::dict d;
  d["records.csv"] = o.results.records_table().to_csv();
  d["summary.csv"] = o.results.summary_table().to_csv();
  return d;
}

}  // namespace

void bind_football_run(py::module_& m) {
  py::class_<fb::TaggerChoice>(m, "FootballTaggerChoice")
      .def(py::init<>())
      .def_readwrite("tagger", &fb::TaggerChoice::tagger)
      .def_readwrite("model", &fb::TaggerChoice::model)
      .def_readwrite("params", &fb::TaggerChoice::params);
  py::class_<fb::TrainSpec>(m, "FootballTrainSpec")
      .def(py::init<>())
      .def_readwrite("lines", &fb::TrainSpec::lines)
      .def_readwrite("params", &fb::TrainSpec::params)
      .def_readwrite("seed", &fb::TrainSpec::seed);
  py::class_<fb::EvaluateSpec>(m, "FootballEvaluateSpec")
      .def(py::init<>())
      .def_readwrite("lines", &fb::EvaluateSpec::lines)
      .def_readwrite("tagger", &fb::EvaluateSpec::tagger)
      .def_readwrite("lomo", &fb::EvaluateSpec::lomo)
      .def_readwrite("seed", &fb::EvaluateSpec::seed)
      .def_readwrite("max_gap_s", &fb::EvaluateSpec::max_gap_s)
      .def_readwrite("padding", &fb::EvaluateSpec::padding);
  py::class_<fb::SegmentsSpec>(m, "FootballSegmentsSpec")
      .def(py::init<>())
      .def_readwrite("lines", &fb::SegmentsSpec::lines)
      .def_readwrite("tagger", &fb::SegmentsSpec::tagger)
      .def_readwrite("kickoffs", &fb::SegmentsSpec::kickoffs)
      .def_readwrite("lag_s", &fb::SegmentsSpec::lag_s)
      .def_readwrite("max_gap_s", &fb::SegmentsSpec::max_gap_s)
      .def_readwrite("padding", &fb::SegmentsSpec::padding)
      .def_readwrite("events", &fb::SegmentsSpec::events)
      .def_readwrite("events_format", &fb::SegmentsSpec::events_format)
      .def_readwrite("search_s", &fb::SegmentsSpec::search_s)
      .def_readwrite("min_confidence", &fb::SegmentsSpec::min_confidence);
  py::class_<fb::CutSpec>(m, "FootballCutSpec")
      .def(py::init<>())
      .def_readwrite("video", &fb::CutSpec::video)
      .def_readwrite("segments", &fb::CutSpec::segments)
      .def_readwrite("mode", &fb::CutSpec::mode);
  py::class_<fb::SpottingSpec>(m, "FootballSpottingSpec")
      .def(py::init<>())
      .def_readwrite("labels", &fb::SpottingSpec::labels)
      .def_readwrite("predictions", &fb::SpottingSpec::predictions)
      .def_readwrite("dictionary", &fb::SpottingSpec::dictionary);

  py::class_<fb::TrainOutput>(m, "FootballTrainOutput")
      .def("results_json", [](const fb::TrainOutput& o) { return o.results.json_text(); })
      .def("tables", [](const fb::TrainOutput& o) { return results_tables(o); })
      .def("summary_text",
           [](const fb::TrainOutput& o, const std::string& format) { return o.summary_text(format, "."); })
      .def("write", [](const fb::TrainOutput& o, const std::string& path) {
        OutputDir out(path);
        o.write(out);
        return committed(out);
      });
  py::class_<fb::EvaluateOutput>(m, "FootballEvaluateOutput")
      .def("results_json", [](const fb::EvaluateOutput& o) { return o.results.json_text(); })
      .def("tables",
           [](const fb::EvaluateOutput& o) {
             py::dict d;
             for (const auto& [name, text] : o.tables()) d[py::str(name)] = text;
             return d;
           })
      .def("summary_text", &fb::EvaluateOutput::summary_text)
      .def("write", [](const fb::EvaluateOutput& o, const std::string& path) {
        OutputDir out(path);
        o.write(out);
        return committed(out);
      });
  py::class_<fb::SegmentsOutput>(m, "FootballSegmentsOutput")
      .def("segments_json", [](const fb::SegmentsOutput& o) { return o.summary_text("json", ""); })
      .def("segments_csv", [](const fb::SegmentsOutput& o) { return o.table.to_csv(); })
      .def("summary_text",
           [](const fb::SegmentsOutput& o, const std::string& format) { return o.summary_text(format, "."); })
      .def("write", [](const fb::SegmentsOutput& o, const std::string& path) {
        OutputDir out(path);
        o.write(out);
        return committed(out);
      });

  m.def("football_check_train", [](const fb::TrainSpec& s) { fb::check(s); });
  m.def("football_train", [](const fb::TrainSpec& s) {
    py::gil_scoped_release release;
    return fb::run(s);
  });
  m.def("football_check_evaluate", [](const fb::EvaluateSpec& s) { fb::check(s); });
  m.def("football_evaluate", [](const fb::EvaluateSpec& s) {
    py::gil_scoped_release release;
    return fb::run(s);
  });
  m.def("football_check_segments", [](const fb::SegmentsSpec& s) { fb::check(s); });
  m.def("football_segments", [](const fb::SegmentsSpec& s) {
    py::gil_scoped_release release;
    return fb::run(s);
  });
  m.def("football_tag", [](const fb::TagSpec& s) { return fb::run(s).to_csv(); });
  py::class_<fb::TagSpec>(m, "FootballTagSpec")
      .def(py::init<>())
      .def_readwrite("lines", &fb::TagSpec::lines)
      .def_readwrite("tagger", &fb::TagSpec::tagger);
  m.def("football_spotting", [](const fb::SpottingSpec& s) { return fb::run(s).summary_text("json"); });
  m.def(
      "football_cut",
      [](const fb::CutSpec& s, const std::string& path) {
        fb::check(s);
        OutputDir out(path, {s.video, s.segments});
        const fb::CutOutput o = fb::run(s, out);
        const std::string folder = committed(out);
        return py::make_tuple(o.summary_text("json", s.video, folder), folder);
      },
      py::arg("spec"), py::arg("out"));
}

}  // namespace dmlkit::python
