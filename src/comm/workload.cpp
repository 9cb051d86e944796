// Conversion of model DAGs into the simulator's layer/tensor lists (see workload.h).
#include "comm/workload.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/error.h"

namespace dmlkit::comm {

double TrainingWorkload::compute_s() const {
  double s = 0;
  for (const auto& l : layers) s += l.fwd_s + l.bwd_s;
  return s;
}

double TrainingWorkload::total_bytes() const {
  double s = 0;
  for (const auto& t : tensors) s += t.bytes;
  return s;
}

TensorGranularity parse_granularity(const std::string& s) {
  if (s == "module") return TensorGranularity::module;
  if (s == "parameter") return TensorGranularity::parameter;
  throw Error("", 0, "tensors", "must be module or parameter, got '" + s + "'");
}

namespace {

// The integers in `s` in order, e.g. "Conv2d(3, 64, kernel_size=(3, 3))" -> 3 64 3 3.
std::vector<double> integers(const std::string& s) {
  std::vector<double> out;
  size_t i = 0;
  while (i < s.size()) {
    if (std::isdigit(static_cast<unsigned char>(s[i])) &&
        (i == 0 || !std::isalpha(static_cast<unsigned char>(s[i - 1])))) {
      size_t j = i;
      while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
      if (j < s.size() && s[j] == '.') {  // a float such as p=0.5: skip it
        while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
      } else {
        out.push_back(std::stod(s.substr(i, j - i)));
      }
      i = j;
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, double>> split_parameters(const std::string& op, double elements) {
  auto nums = integers(op);
  if (op.rfind("Conv2d(", 0) == 0 && nums.size() >= 4) {
    const double weight = nums[0] * nums[1] * nums[2] * nums[3];  // in, out, kh, kw (groups = 1)
    if (weight == elements) return {{"weight", weight}};
    if (weight + nums[1] == elements) return {{"weight", weight}, {"bias", nums[1]}};
  } else if (op.rfind("Linear(", 0) == 0 && nums.size() >= 2) {
    const double weight = nums[0] * nums[1];
    if (weight == elements) return {{"weight", weight}};
    if (weight + nums[1] == elements) return {{"weight", weight}, {"bias", nums[1]}};
  } else if (op.rfind("BatchNorm2d(", 0) == 0 && !nums.empty()) {
    if (2 * nums[0] == elements) return {{"weight", nums[0]}, {"bias", nums[0]}};
  }
  return {};
}

TrainingWorkload make_workload(const ModelGraph& graph, TensorGranularity granularity) {
  TrainingWorkload w;
  w.model = graph.name;
  const int n = static_cast<int>(graph.nodes.size());
  std::vector<int> depth(n, 0);
  for (int i = 0; i < n; ++i)  // nodes are in topological order
    for (int p : graph.nodes[i].preds) depth[i] = std::max(depth[i], depth[p] + 1);
  for (int i = 0; i < n; ++i) {
    const auto& node = graph.nodes[i];
    Layer layer{node.id + " " + node.op.substr(0, node.op.find('(')), node.fwd_s, node.bwd_s, -1, 0};
    if (node.param_bytes > 0) {
      std::vector<std::pair<std::string, double>> parts;
      if (granularity == TensorGranularity::parameter) parts = split_parameters(node.op, node.param_bytes / 4);
      if (parts.empty()) parts = {{"", node.param_bytes / 4}};
      layer.tensor = static_cast<int>(w.tensors.size());
      layer.tensor_count = static_cast<int>(parts.size());
      for (const auto& [suffix, elements] : parts) {
        Tensor t;
        t.name = suffix.empty() ? layer.name : layer.name + "." + suffix;
        t.bytes = elements * 4;
        t.layer = static_cast<int>(w.layers.size());
        t.forward_rank = static_cast<int>(w.tensors.size());
        t.dag_depth = depth[i];
        w.tensors.push_back(t);
      }
    }
    w.layers.push_back(std::move(layer));
  }
  return w;
}

std::vector<std::pair<std::string, double>> bert_base_parameters() {
  const double vocab = 30522, positions = 512, types = 2, h = 768, ffn = 3072;
  std::vector<std::pair<std::string, double>> p = {{"embeddings.word_embeddings.weight", vocab * h},
                                                   {"embeddings.position_embeddings.weight", positions * h},
                                                   {"embeddings.token_type_embeddings.weight", types * h},
                                                   {"embeddings.LayerNorm.weight", h},
                                                   {"embeddings.LayerNorm.bias", h}};
  for (int l = 0; l < 12; ++l) {
    const std::string e = "encoder.layer." + std::to_string(l) + ".";
    for (const char* m :
         {"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"}) {
      p.push_back({e + m + ".weight", h * h});
      p.push_back({e + m + ".bias", h});
    }
    p.push_back({e + "attention.output.LayerNorm.weight", h});
    p.push_back({e + "attention.output.LayerNorm.bias", h});
    p.push_back({e + "intermediate.dense.weight", h * ffn});
    p.push_back({e + "intermediate.dense.bias", ffn});
    p.push_back({e + "output.dense.weight", ffn * h});
    p.push_back({e + "output.dense.bias", h});
    p.push_back({e + "output.LayerNorm.weight", h});
    p.push_back({e + "output.LayerNorm.bias", h});
  }
  p.push_back({"pooler.dense.weight", h * h});
  p.push_back({"pooler.dense.bias", h});
  return p;
}

TrainingWorkload make_chain_workload(const std::string& name, const std::vector<SyntheticLayer>& layers) {
  TrainingWorkload w;
  w.model = name;
  for (size_t i = 0; i < layers.size(); ++i) {
    Layer layer{"layer" + std::to_string(i), layers[i].fwd_s, layers[i].bwd_s, -1, 0};
    if (layers[i].param_bytes > 0) {
      layer.tensor = static_cast<int>(w.tensors.size());
      layer.tensor_count = 1;
      Tensor t{layer.name, layers[i].param_bytes, static_cast<int>(i), layer.tensor, static_cast<int>(i)};
      w.tensors.push_back(t);
    }
    w.layers.push_back(std::move(layer));
  }
  return w;
}

}  // namespace dmlkit::comm
