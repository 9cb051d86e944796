// Finding and reading Harmony's model files; see model_lookup.h.
#include "cluster/policies/harmony/model_lookup.h"

#include <filesystem>
#include <stdexcept>

#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit::cluster {

std::string bundled_model_path(const std::string& name_or_path, const std::string& knob) {
  if (name_or_path.find('/') == std::string::npos && name_or_path.find(".json") == std::string::npos) {
    const std::string bundled = data_path("models/" + name_or_path + ".json");
    if (std::filesystem::is_regular_file(bundled)) return bundled;
    throw Error("", 0, knob,
                "no bundled model '" + name_or_path + "' (in " + data_path("models") + "); give a model file's path");
  }
  return name_or_path;
}

int model_meta_int(const learn::ModelFile& f, const std::string& path, const std::string& key) {
  auto it = f.meta.find(key);
  if (it == f.meta.end()) throw Error(path, 0, "meta." + key, "missing");
  try {
    size_t used = 0;
    const int v = std::stoi(it->second, &used);
    if (used != it->second.size() || v < 1) throw std::invalid_argument("");
    return v;
  } catch (const std::exception&) {
    throw Error(path, 0, "meta." + key, "not a positive integer: '" + it->second + "'");
  }
}

}  // namespace dmlkit::cluster
