// Harmony's model file; see harmony_model.h.
#include "cluster/policies/harmony/harmony_model.h"

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "cluster/policies/harmony/model_lookup.h"
#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {
learn::MlpShape mlp(int in, const std::vector<int>& hidden, int out) {
  learn::MlpShape s;
  s.inputs = in;
  s.hidden = hidden;
  s.outputs = out;
  s.affine = false;
  return s;
}
}  // namespace

learn::MlpShape harmony_policy_shape(const HarmonyShape& s, const std::vector<int>& hidden) {
  return mlp(s.state_size(), hidden, s.actions());
}
learn::MlpShape harmony_value_shape(const HarmonyShape& s, const std::vector<int>& hidden) {
  return mlp(s.state_size(), hidden, 1);
}
learn::MlpShape harmony_reward_shape(const HarmonyShape& s, const std::vector<int>& hidden) {
  return mlp(harmony_reward_input_size(s), hidden, s.jobs);
}

std::string harmony_model_path(const std::string& name_or_path) {
  return bundled_model_path(name_or_path, "harmony.model");
}

std::string harmony_default_model(const std::string& experiment_name, const std::string& interference,
                                  const std::string& family) {
  // Another family's names: its prefix instead of an experiment's leading "harmony".
  const std::string experiment = family != "harmony" && experiment_name.rfind("harmony", 0) == 0
                                     ? family + experiment_name.substr(7)
                                     : experiment_name;
  std::vector<std::string> names;
  if (!experiment.empty() && !interference.empty()) names.push_back(experiment + "-" + interference);
  if (!experiment.empty()) names.push_back(experiment);
  if (!interference.empty()) names.push_back(family + "-testbed-" + interference);
  names.push_back(family + "-testbed");
  for (const auto& n : names)
    if (n.find('/') == std::string::npos && std::filesystem::is_regular_file(data_path("models/" + n + ".json"))) return n;
  return names.back();
}

HarmonyModel load_harmony_model(const std::string& name_or_path) {
  const std::string path = harmony_model_path(name_or_path);
  const learn::ModelFile f = learn::load_model_file(path);
  if (f.kind != "harmony") throw Error(path, 0, "kind", "not a Harmony model (kind '" + f.kind + "')");
  HarmonyModel m;
  m.path = path;
  m.meta = f.meta;
  m.shape.servers = model_meta_int(f, path, "servers");
  m.shape.jobs = model_meta_int(f, path, "jobs");
  m.shape.new_jobs = model_meta_int(f, path, "new_jobs");
  if (auto it = f.meta.find("defer"); it != f.meta.end()) {
    if (it->second != "on" && it->second != "off") throw Error(path, 0, "meta.defer", "must be on or off, got '" + it->second + "'");
    m.shape.defer = it->second == "on";
  }
  if (auto it = f.meta.find("type_counts"); it != f.meta.end()) {
    if (it->second != "on" && it->second != "off")
      throw Error(path, 0, "meta.type_counts", "must be on or off, got '" + it->second + "'");
    m.shape.type_counts = it->second == "on";
  }
  if (m.shape.new_jobs > m.shape.jobs) throw Error(path, 0, "meta.new_jobs", "larger than meta.jobs");
  auto net = [&](const std::string& name, int in, int out, bool required) -> learn::StoredNet {
    auto it = f.nets.find(name);
    if (it == f.nets.end()) {
      if (required) throw Error(path, 0, "nets." + name, "missing");
      return {};
    }
    if (it->second.shape.inputs != in || it->second.shape.outputs != out)
      throw Error(path, 0, "nets." + name,
                  "has " + std::to_string(it->second.shape.inputs) + " inputs and " +
                      std::to_string(it->second.shape.outputs) + " outputs; " + std::to_string(m.shape.servers) +
                      " servers and " + std::to_string(m.shape.jobs) + " job slots need " + std::to_string(in) +
                      " and " + std::to_string(out));
    return it->second;
  };
  m.policy = net("policy", m.shape.state_size(), m.shape.actions(), true);
  m.value = net("value", m.shape.state_size(), 1, false);
  m.reward = net("reward", harmony_reward_input_size(m.shape), m.shape.jobs, false);
  if (m.has_reward()) {
    auto it = f.extra.find("speed_scale");
    if (it == f.extra.end() || static_cast<int>(it->second.size()) != m.shape.types)
      throw Error(path, 0, "extra.speed_scale", "missing or not one value per job type");
    for (float v : it->second)
      if (!(v > 0) || !std::isfinite(v)) throw Error(path, 0, "extra.speed_scale", "values must be positive");
    m.speed_scale = it->second;
  }
  return m;
}

learn::ModelFile harmony_model_file(const HarmonyModel& m) {
  learn::ModelFile f;
  f.kind = "harmony";
  f.meta = m.meta;
  f.meta["servers"] = std::to_string(m.shape.servers);
  f.meta["jobs"] = std::to_string(m.shape.jobs);
  f.meta["new_jobs"] = std::to_string(m.shape.new_jobs);
  if (m.shape.defer) f.meta["defer"] = "on";
  if (m.shape.type_counts) f.meta["type_counts"] = "on";
  f.nets["policy"] = m.policy;
  if (m.has_value()) f.nets["value"] = m.value;
  if (m.has_reward()) {
    f.nets["reward"] = m.reward;
    f.extra["speed_scale"] = m.speed_scale;
  }
  return f;
}

HarmonySpeedPredictor::HarmonySpeedPredictor(const HarmonyShape& shape, const learn::StoredNet& net,
                                             std::vector<float> speed_scale)
    : shape_(shape), net_(net.shape, net.parameters), scale_(std::move(speed_scale)) {
  input_.resize(harmony_reward_input_size(shape));
}

void HarmonySpeedPredictor::predict(std::span<const HarmonyPlacedJob> jobs, std::vector<double>& speeds) {
  speeds.assign(jobs.size(), 0.0);
  harmony_reward_input(shape_, jobs, input_.data());
  const std::vector<float>& out = net_.run(input_.data());
  const size_t n = std::min(jobs.size(), static_cast<size_t>(shape_.jobs));
  for (size_t i = 0; i < n; ++i)
    speeds[i] = std::max(0.0, static_cast<double>(out[i])) * scale_[std::clamp(jobs[i].type, 0, shape_.types - 1)];
}

}  // namespace dmlkit::cluster
