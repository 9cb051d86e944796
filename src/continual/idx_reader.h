// Reader of IDX files (the MNIST / Fashion-MNIST format: big-endian magic 0x0000TTNN with element
// type TT = 0x08 (unsigned byte) and NN dimensions, NN big-endian uint32 sizes, then the data),
// plain or gzip-compressed (zlib's gzread reads both). A wrong magic, a truncated header or body,
// trailing bytes, or images and labels that disagree raise dmlkit::Error naming the file and field.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace dmlkit::continual {

struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
};

// Reads an unsigned-byte IDX array that must have `expected_ndims` dimensions.
IdxArray read_idx(const std::string& path, int expected_ndims);

// Images (n x rows x cols, pixel bytes) with their class labels.
struct ImageSet {
  int rows = 0, cols = 0;
  std::vector<uint8_t> pixels;  // n * rows * cols
  std::vector<uint8_t> labels;  // n
  size_t size() const { return labels.size(); }
};

// Reads an images file (3 dims) and a labels file (1 dim) with the same count; labels must be
// below `num_classes`.
ImageSet read_idx_images(const std::string& images_path, const std::string& labels_path, int num_classes = 10);

// Debian's dataset-fashion-mnist folder.
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";
// `split` is "train" or "t10k": <dir>/<split>-images-idx3-ubyte.gz and -labels-idx1-ubyte.gz.
ImageSet load_fashion_mnist(const std::string& dir, const std::string& split);

}  // namespace dmlkit::continual
