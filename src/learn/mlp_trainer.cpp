// See mlp_trainer.h.
#include "learn/mlp_trainer.h"

#include <string>

#include "core/error.h"

namespace dmlkit::learn {

namespace {

// The checks both trainers make before the plugin sees their arguments.
template <typename Shape>
void check_trainer_arguments(const Shape& shape, const std::vector<float>& parameters, double learning_rate) {
  shape.validate();
  if (parameters.size() != shape.parameter_count())
    throw Error("network: " + std::to_string(parameters.size()) + " parameters for a shape that has " +
                std::to_string(shape.parameter_count()));
  if (!(learning_rate >= 0)) throw Error("network: the learning rate must be non-negative");
}

}  // namespace

std::unique_ptr<MlpTrainerEngine> make_mlp_trainer(const MlpShape& shape, const std::vector<float>& parameters,
                                                   double learning_rate) {
  check_trainer_arguments(shape, parameters, learning_rate);
  return torch_plugin().make_mlp_trainer(shape, parameters, learning_rate);
}

std::unique_ptr<MlpTrainerEngine> make_column_trainer(const ColumnNetShape& shape, const std::vector<float>& parameters,
                                                      double learning_rate) {
  check_trainer_arguments(shape, parameters, learning_rate);
  return torch_plugin().make_column_trainer(shape, parameters, learning_rate);
}

std::unique_ptr<MlpTrainerEngine> make_attn_trainer(const AttnShape& shape, const std::vector<float>& parameters,
                                                    double learning_rate) {
  check_trainer_arguments(shape, parameters, learning_rate);
  return torch_plugin().make_attn_trainer(shape, parameters, learning_rate);
}

}  // namespace dmlkit::learn
