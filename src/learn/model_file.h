// Trained networks on disk: one JSON file holding named networks (shape and float32 parameters,
// base64 of their little-endian bytes) and free-form metadata (what produced it: preset, command,
// seed, training steps). Small, diffable headers, exact parameters. Used by the learned schedulers
// (DL2's shipped models in data/models/, training checkpoints).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "learn/column_net.h"
#include "learn/mlp.h"

namespace dmlkit::learn {

// A network: an MLP (learn/mlp.h, arch "mlp", the default) or a column-shared network
// (learn/column_net.h, arch "column": `column` holds its shape and `shape` only its inputs and
// outputs, with no hidden layer). The file writes "arch" only for "column" networks.
struct StoredNet {
  StoredNet() = default;
  StoredNet(MlpShape s, std::vector<float> p) : shape(std::move(s)), parameters(std::move(p)) {}
  MlpShape shape;
  std::vector<float> parameters;
  std::string arch = "mlp";
  ColumnNetShape column;
  size_t parameter_count() const { return arch == "column" ? column.parameter_count() : shape.parameter_count(); }
};

// A StoredNet of a column-shared network.
StoredNet column_stored_net(const ColumnNetShape& shape, std::vector<float> parameters);

struct ModelFile {
  std::string kind;                                 // e.g. "dl2" (a loader checks it)
  std::map<std::string, std::string> meta;          // free-form, written sorted
  std::map<std::string, StoredNet> nets;            // e.g. "policy", "value"
  std::map<std::string, std::vector<float>> extra;  // other float arrays (e.g. optimizer state)
};

// Writes atomically (temporary file, then rename).
void save_model_file(const std::string& path, const ModelFile& model);
// Throws dmlkit::Error(path, 0, field, ...) on a missing, unreadable or corrupt file (bad JSON,
// a missing field, a parameter count that does not match the shape, non-finite values).
ModelFile load_model_file(const std::string& path);

}  // namespace dmlkit::learn
