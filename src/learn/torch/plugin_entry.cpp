// The libtorch plugin's entry point: the table of its functions (learn/torch_plugin.h), and the
// helpers its translation units share.
#include "learn/torch/torch_impl.h"

extern "C" const dmlkit::learn::TorchPlugin* dmlkit_torch_plugin() {
  static const dmlkit::learn::TorchPlugin table{dmlkit::learn::kTorchPluginAbi,
                                                &dmlkit::learn::torch_impl::train_full_batch,
                                                &dmlkit::learn::torch_impl::train_one,
                                                &dmlkit::learn::torch_impl::fisher_diagonal,
                                                &dmlkit::learn::torch_impl::make_small_cnn,
                                                &dmlkit::learn::torch_impl::make_mlp_trainer,
                                                &dmlkit::learn::torch_impl::make_column_trainer,
                                                &dmlkit::learn::torch_impl::make_attn_trainer};
  return &table;
}

namespace dmlkit::learn::torch_impl {

std::vector<float> flatten_tensors(const std::vector<at::Tensor>& tensors) {
  std::vector<float> out;
  for (const auto& t : tensors) {
    const at::Tensor c = t.detach().contiguous();
    out.insert(out.end(), c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
  }
  return out;
}

}  // namespace dmlkit::learn::torch_impl
