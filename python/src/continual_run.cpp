// dmlkit.continual in-process: the specs of continual/run.h (and the configurations they hold) as
// Python classes, and run() returning the output without writing a folder.
#include <pybind11/stl.h>

#include <filesystem>

#include "bindings.h"
#include "continual/run.h"
#include "core/output_dir.h"

namespace dmlkit::python {

namespace cont = dmlkit::continual;

namespace {

template <class Config>
void training_fields(py::class_<Config>& c) {
  c.def_readwrite("train_per_class", &Config::train_per_class)
      .def_readwrite("test_per_class", &Config::test_per_class)
      .def_readwrite("filters_per_class", &Config::filters_per_class)
      .def_readwrite("power_q", &Config::power_q)
      .def_readwrite("learning_rate", &Config::learning_rate)
      .def_readwrite("epochs", &Config::epochs)
      .def_readwrite("batch_size", &Config::batch_size)
      .def_readwrite("seeds", &Config::seeds)
      .def_readwrite("seed", &Config::seed)
      .def_readwrite("threads", &Config::threads);
}

template <class Spec>
void run_function(py::module_& m, const char* name) {
  m.def(name, [](const Spec& spec) {
    cont::check(spec);
    py::gil_scoped_release release;
    return cont::run(spec);
  });
}

}  // namespace

void bind_continual_run(py::module_& m) {
  py::class_<cont::SignalNoiseConfig>(m, "SignalNoiseConfig")
      .def_readwrite("patch_len", &cont::SignalNoiseConfig::patch_len)
      .def_readwrite("num_patches", &cont::SignalNoiseConfig::num_patches)
      .def_readwrite("signal_norm", &cont::SignalNoiseConfig::signal_norm)
      .def_readwrite("noise_std", &cont::SignalNoiseConfig::noise_std)
      .def_readwrite("train_per_task", &cont::SignalNoiseConfig::train_per_task)
      .def_readwrite("test_per_task", &cont::SignalNoiseConfig::test_per_task)
      .def_readwrite("noise_orthogonal", &cont::SignalNoiseConfig::noise_orthogonal);
  py::class_<cont::AngleSweepConfig>(m, "AngleSweepConfig")
      .def_readwrite("data", &cont::AngleSweepConfig::data)
      .def_readwrite("filters_per_class", &cont::AngleSweepConfig::filters_per_class)
      .def_readwrite("power_q", &cont::AngleSweepConfig::power_q)
      .def_readwrite("learning_rate", &cont::AngleSweepConfig::learning_rate)
      .def_readwrite("epochs", &cont::AngleSweepConfig::epochs)
      .def_readwrite("replay_fraction", &cont::AngleSweepConfig::replay_fraction)
      .def_readwrite("ewc_lambda", &cont::AngleSweepConfig::ewc_lambda)
      .def_readwrite("harmful_error", &cont::AngleSweepConfig::harmful_error)
      .def_readwrite("seeds", &cont::AngleSweepConfig::seeds)
      .def_readwrite("seed", &cont::AngleSweepConfig::seed)
      .def_readwrite("threads", &cont::AngleSweepConfig::threads)
      .def_readwrite("chunk_models", &cont::AngleSweepConfig::chunk_models);
  py::class_<cont::AngleSweepSpec>(m, "AngleSweepSpec")
      .def(py::init<>())
      .def_readwrite("angles", &cont::AngleSweepSpec::angles)
      .def_readwrite("variants", &cont::AngleSweepSpec::variants)
      .def_readwrite("backend", &cont::AngleSweepSpec::backend)
      .def_readwrite("fisher", &cont::AngleSweepSpec::fisher)
      .def_readwrite("ewc_step", &cont::AngleSweepSpec::ewc_step)
      .def_readwrite("config", &cont::AngleSweepSpec::config);
  py::class_<cont::ImageData>(m, "ImageData")
      .def_readwrite("dataset", &cont::ImageData::dataset)
      .def_readwrite("data_dir", &cont::ImageData::data_dir)
      .def_readwrite("backend", &cont::ImageData::backend);
  py::class_<cont::ReplayExperimentConfig> replay_config(m, "ReplayExperimentConfig");
  training_fields(replay_config);
  replay_config.def_readwrite("tasks", &cont::ReplayExperimentConfig::tasks)
      .def_readwrite("strategies", &cont::ReplayExperimentConfig::strategies)
      .def_readwrite("buffer_sizes", &cont::ReplayExperimentConfig::buffer_sizes)
      .def_readwrite("cnn_conv1_channels", &cont::ReplayExperimentConfig::cnn_conv1_channels)
      .def_readwrite("cnn_conv2_channels", &cont::ReplayExperimentConfig::cnn_conv2_channels)
      .def_readwrite("cnn_kernel", &cont::ReplayExperimentConfig::cnn_kernel)
      .def_readwrite("cnn_feature_dim", &cont::ReplayExperimentConfig::cnn_feature_dim)
      .def_readwrite("cnn_learning_rate", &cont::ReplayExperimentConfig::cnn_learning_rate)
      .def_readwrite("cnn_batch_size", &cont::ReplayExperimentConfig::cnn_batch_size)
      .def_readwrite("cnn_momentum", &cont::ReplayExperimentConfig::cnn_momentum);
  py::class_<cont::ReplaySpec>(m, "ReplaySpec")
      .def(py::init<>())
      .def_readwrite("data", &cont::ReplaySpec::data)
      .def_readwrite("scenario", &cont::ReplaySpec::scenario)
      .def_readwrite("task_classes", &cont::ReplaySpec::task_classes)
      .def_readwrite("config", &cont::ReplaySpec::config);
  py::class_<cont::SignTaskConfig> sign_config(m, "SignTaskConfig");
  training_fields(sign_config);
  sign_config.def_readwrite("replay_sizes", &cont::SignTaskConfig::replay_sizes)
      .def_readwrite("flip_new_task", &cont::SignTaskConfig::flip_new_task);
  py::class_<cont::SignAngleSpec>(m, "SignAngleSpec")
      .def(py::init<>())
      .def_readwrite("data", &cont::SignAngleSpec::data)
      .def_readwrite("pairs", &cont::SignAngleSpec::pairs)
      .def_readwrite("config", &cont::SignAngleSpec::config);
  py::class_<cont::RunOutput>(m, "ContinualRunOutput")
      .def("results_json", [](const cont::RunOutput& o) { return o.results.json_text(); })
      .def("tables",
           [](const cont::RunOutput& o) {
             py::dict d;
             d["records.csv"] = o.results.records_table().to_csv();
             d["summary.csv"] = o.results.summary_table().to_csv();
             for (const auto& [name, table] : o.tables) d[py::str(name)] = table.to_csv();
             return d;
           })
      .def("summary_text", &cont::RunOutput::summary_text)
      .def("write", [](const cont::RunOutput& o, const std::string& path) {
        OutputDir out(path);
        o.write(out);
        return std::filesystem::absolute(out.commit()).lexically_normal().string();
      });
  run_function<cont::AngleSweepSpec>(m, "continual_angle_sweep");
  run_function<cont::ReplaySpec>(m, "continual_replay");
  run_function<cont::SignAngleSpec>(m, "continual_sign_angle");
}

}  // namespace dmlkit::python
