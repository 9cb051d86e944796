// The libtorch plugin's entry point: the table of its functions (learn/torch_plugin.h).
#include "learn/torch/torch_impl.h"

extern "C" const dmlkit::learn::TorchPlugin* dmlkit_torch_plugin() {
  static const dmlkit::learn::TorchPlugin table{
      dmlkit::learn::kTorchPluginAbi, &dmlkit::learn::torch_impl::train_full_batch,
      &dmlkit::learn::torch_impl::train_one, &dmlkit::learn::torch_impl::fisher_diagonal,
      &dmlkit::learn::torch_impl::make_small_cnn, &dmlkit::learn::torch_impl::make_mlp_trainer};
  return &table;
}
