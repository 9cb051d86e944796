// Test helper: tiny 4x4 image sets where class c lights pixels c .. c + lit_width - 1 at 255 and
// every other pixel is uniform noise in [0, noise_max]; images cycle through the classes.
#pragma once
#include <cstdint>

#include "continual/idx_reader.h"
#include "core/rng.h"

namespace dmlkit::continual {

inline ImageSet lit_pixel_images(int classes, int per_class, int lit_width, int noise_max, uint64_t seed) {
  ImageSet s;
  s.rows = s.cols = 4;
  Rng rng(seed);
  for (int i = 0; i < per_class * classes; ++i) {
    const int c = i % classes;
    for (int p = 0; p < 16; ++p)
      s.pixels.push_back(static_cast<uint8_t>(p >= c && p < c + lit_width ? 255 : rng.uniform_int(0, noise_max)));
    s.labels.push_back(static_cast<uint8_t>(c));
  }
  return s;
}

}  // namespace dmlkit::continual
