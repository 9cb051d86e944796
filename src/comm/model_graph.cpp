// Models by name and their compute scaling (see model_graph.h); the format's reader is
// core/pipedream_graph.cpp.
#include "comm/model_graph.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>

#include "core/data_dir.h"
#include "core/error.h"
#include "core/suggest.h"

namespace dmlkit::comm {

std::string default_model_graph_dir() { return data_path("model-graphs"); }

std::vector<std::string> list_models(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".txt") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

ModelGraph load_model(const std::string& name, const std::string& dir) {
  if (!std::filesystem::is_directory(dir)) throw Error(dir, 0, "", "no such folder of model graphs");
  auto names = list_models(dir);
  if (names.empty()) throw Error(dir, 0, "", "this folder holds no model graphs (NAME.txt)");
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    throw Error(dir, 0, "model",
                "unknown model '" + name + "'" + did_you_mean(name, names) +
                    " (known: " + fmt::to_string(fmt::join(names, ", ")) + ")");
  }
  return read_model_graph(dir + "/" + name + ".txt", name);
}

void scale_compute(ModelGraph& graph, double factor) {
  if (!(factor > 0) || !std::isfinite(factor)) throw Error("", 0, "compute_scale", "must be a finite number > 0");
  for (auto& n : graph.nodes) {
    n.fwd_s *= factor;
    n.bwd_s *= factor;
  }
}

}  // namespace dmlkit::comm
