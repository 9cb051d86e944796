// What the two real-image experiments (replay strategies, +class vs -class tasks) share: how the
// ReLU^q patch network is sized and trained on normalised pixels, and how many seeds run on how
// many threads.
#pragma once
#include <cstddef>
#include <cstdint>

#include "learn/gradient_descent.h"
#include "learn/patch_cnn.h"
#include "learn/train_backend.h"

namespace dmlkit::continual {

struct ImageTrainingConfig {
  int train_per_class = 1000;  // training images per class (first ones of the split)
  int test_per_class = 1000;   // test images per class
  int filters_per_class = 64;  // m
  int power_q = 3;
  double learning_rate = 0.01;
  int epochs = 1;  // per task
  size_t batch_size = 64;
  // [A] Pixel normalisation (x/255 - mean) / std; Fashion-MNIST training-set statistics.
  double pixel_mean = 0.2860, pixel_std = 0.3530;
  int seeds = 3;
  uint64_t seed = 1;
  int threads = 2;
  // The ReLU^q head trains on libtorch autograd (default) or on the hand-written Eigen reference.
  learn::TrainBackend backend = learn::TrainBackend::torch;

  // Checks these fields (at least `min_per_class` images per class); throws Error naming the field.
  void validate_training(int min_per_class) const;
  // The network for images of `patch_len` pixels (output scaled by 1/m) and its optimiser.
  learn::PatchCnnShape network_shape(int patch_len) const;
  learn::GdConfig optimiser() const;
  // A pixel value 0..255 after normalisation.
  float normalise(uint8_t pixel) const { return static_cast<float>((pixel / 255.0 - pixel_mean) / pixel_std); }
};

}  // namespace dmlkit::continual
