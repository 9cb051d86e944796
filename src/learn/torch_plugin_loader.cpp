// Loads libdmlkit_torch.so with dlopen on first use (see torch_plugin.h) and forwards the
// libtorch-backed functions of patch_cnn_batch.h to it.
#include "learn/torch_plugin.h"

#include <dlfcn.h>

#include <cstdlib>
#include <exception>
#include <mutex>
#include <string>

#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit::learn {
namespace {

std::string plugin_path() {
  if (const char* env = std::getenv("DMLKIT_TORCH_PLUGIN"); env && *env) return env;
  // Installed (make install): PREFIX/lib/dmlkit/ beside PREFIX/bin/dmlkit; else the build's.
  if (std::string installed = installed_path("lib/dmlkit/libdmlkit_torch.so"); !installed.empty()) return installed;
  return DMLKIT_TORCH_PLUGIN_PATH;
}

const TorchPlugin* load() {
  const std::string path = plugin_path();
  // Never closed: libtorch's static state lives until the process ends.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(path, 0, "",
                std::string("cannot load the libtorch plugin: ") + (why ? why : "unknown error") +
                    " (build it with the project, or set DMLKIT_TORCH_PLUGIN)");
  }
  using Entry = const TorchPlugin* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "dmlkit_torch_plugin"));
  if (!entry) throw Error(path, 0, "", "not a dmlkit libtorch plugin (no dmlkit_torch_plugin symbol)");
  const TorchPlugin* table = entry();
  if (!table || table->abi_version != kTorchPluginAbi)
    throw Error(path, 0, "", "libtorch plugin of another version (rebuild the project)");
  return table;
}

}  // namespace

const TorchPlugin& torch_plugin() {
  static std::once_flag once;
  static const TorchPlugin* table = nullptr;
  static std::exception_ptr failure;  // the same error for every later call
  std::call_once(once, [] {
    try {
      table = load();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  if (!table) std::rethrow_exception(failure);
  return *table;
}

std::vector<GdResult> train_full_batch_torch(const std::vector<PatchCnnTrainJob>& jobs, const GdConfig& config,
                                             const BatchTrainConfig& batch) {
  return torch_plugin().train_full_batch(jobs, config, batch);
}

GdResult train_gradient_descent_torch(PatchCnn& net, const PatchDataset& data, const GdConfig& config,
                                      const QuadraticPenalty* penalty, Rng& rng) {
  return torch_plugin().train_one(net, data, config, penalty, rng);
}

Matrix fisher_diagonal_torch(const PatchCnn& net, const PatchDataset& data, FisherKind kind) {
  return torch_plugin().fisher_diagonal(net, data, kind);
}

}  // namespace dmlkit::learn
