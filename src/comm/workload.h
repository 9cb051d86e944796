// The training workload the iteration simulator runs: layers in forward execution order (one GPU
// stream), each with forward/backward compute time, and the parameter tensors whose gradients
// must be synchronised. Built from a measured ModelGraph (one tensor per module with parameters:
// PipeDream profiles modules, so weight and bias of a layer form one tensor) or synthetically
// (tests). Priorities the schedulers use are derived here, once, from the DAG:
//   forward_rank  position of the tensor's first consumer in the forward order (P3, PACE, BS);
//   dag_depth     longest path from any source node to the consumer (TicTac's timing-independent
//                 order: depends on the DAG only, not on the execution order).
#pragma once
#include <string>
#include <vector>

#include "comm/model_graph.h"

namespace dmlkit::comm {

struct Layer {
  std::string name;
  double fwd_s = 0;
  double bwd_s = 0;
  int tensor = -1;       // first of the layer's tensors in TrainingWorkload::tensors, -1 if none
  int tensor_count = 0;  // the layer's tensors are [tensor, tensor + tensor_count)
};

struct Tensor {
  std::string name;
  double bytes = 0;
  int layer = 0;         // consumer layer (index into layers)
  int forward_rank = 0;  // 0 = consumed first by the forward pass
  int dag_depth = 0;     // longest path (in edges) from a source node
};

struct TrainingWorkload {
  std::string model;
  std::vector<Layer> layers;    // forward order
  std::vector<Tensor> tensors;  // in forward order of their consumer
  double compute_s() const;     // forward + backward, one iteration
  double total_bytes() const;   // all gradients, once
};

// How parameters become gradient tensors:
//   module     one tensor per module with parameters (what PipeDream profiles);
//   parameter  one tensor per framework parameter: Conv2d/Linear split into weight and bias (when
//              the module's size matches that split), BatchNorm into gamma and beta -- the exact
//              per-parameter tables of spec 4.3 (ResNet-50: 161 tensors, VGG-16: 32). Modules
//              whose size matches no known split stay whole.
enum class TensorGranularity { module, parameter };
TensorGranularity parse_granularity(const std::string& s);  // Error on field "tensors"

TrainingWorkload make_workload(const ModelGraph& graph, TensorGranularity granularity = TensorGranularity::module);

// The parameter sizes (elements) a module description splits into, e.g. "Conv2d(3, 64,
// kernel_size=(3, 3), ...)" with 1792 elements -> {1728, 64}; {} if it cannot be split exactly.
std::vector<std::pair<std::string, double>> split_parameters(const std::string& op, double elements);

// BERT-base (HF BertModel, vocabulary 30522, 512 positions, 2 token types, hidden 768, 12 layers,
// FFN 3072): the 199 parameter tensors in model order, (name, elements) -- spec 4.3.
std::vector<std::pair<std::string, double>> bert_base_parameters();

// A chain of layers with the given times and parameter bytes (tests, micro-benchmarks).
struct SyntheticLayer {
  double fwd_s, bwd_s, param_bytes;
};
TrainingWorkload make_chain_workload(const std::string& name, const std::vector<SyntheticLayer>& layers);

}  // namespace dmlkit::comm
