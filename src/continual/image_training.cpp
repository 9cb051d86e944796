#include "continual/image_training.h"

#include <string>

#include "core/error.h"

namespace dmlkit::continual {

void ImageTrainingConfig::validate_training(int min_per_class) const {
  auto bad = [](const char* field, const std::string& why) { throw Error("", 0, field, why); };
  if (train_per_class < min_per_class || test_per_class < min_per_class)
    bad("train_per_class", "need at least " + std::to_string(min_per_class) + " image(s) per class");
  if (filters_per_class < 1 || power_q < 1) bad("filters_per_class", "filters and q must be positive");
  if (!(learning_rate > 0)) bad("learning_rate", "must be positive");
  if (epochs < 1) bad("epochs", "must be at least 1");
  if (batch_size < 1) bad("batch_size", "must be at least 1");
  if (!(pixel_std > 0)) bad("pixel_std", "must be positive");
  if (seeds < 1) bad("runs", "must be at least 1");
  if (threads < 1) bad("threads", "must be at least 1");
}

learn::PatchCnnShape ImageTrainingConfig::network_shape(int patch_len) const {
  learn::PatchCnnShape shape;
  shape.patch_len = patch_len;
  shape.filters_per_class = filters_per_class;
  shape.power_q = power_q;
  shape.output_scale = 1.0f / static_cast<float>(filters_per_class);
  return shape;
}

learn::GdConfig ImageTrainingConfig::optimiser() const {
  learn::GdConfig gd;
  gd.learning_rate = learning_rate;
  gd.epochs = epochs;
  gd.batch_size = batch_size;
  return gd;
}

}  // namespace dmlkit::continual
