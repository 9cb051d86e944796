// A labelled data set of multi-patch inputs, stored with duplicate patches merged: every sample is
// `num_patches` patches of length `patch_len`, each a row of `unique_patches`. Signal-noise data
// repeat the same signal patch (y * mu) in every sample of a label, so merging duplicates halves
// the work of a forward/backward pass without changing any result.
#pragma once
#include <Eigen/Dense>
#include <cstddef>
#include <vector>

namespace dmlkit::learn {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct PatchDataset {
  int patch_len = 0;
  int num_patches = 0;
  Matrix unique_patches;         // u x patch_len
  std::vector<int> patch_row;    // size() * num_patches entries: row of unique_patches
  std::vector<float> labels;     // +1 or -1 per sample
  bool merge_duplicates = true;  // whether subset()/concat() merge identical patches again

  size_t size() const { return labels.size(); }

  // Builds the data set from dense patches: `patches` has size()*num_patches rows (sample i's
  // patch p is row i*num_patches+p). Identical rows are stored once when `merge_duplicates`.
  static PatchDataset from_patches(const Matrix& patches, int num_patches, std::vector<float> labels,
                                   bool merge_duplicates = true);
  // The samples at `indices` (in that order), duplicates merged again if merge_duplicates.
  PatchDataset subset(const std::vector<size_t>& indices) const;
  // Concatenation of two data sets with the same shape.
  static PatchDataset concat(const PatchDataset& a, const PatchDataset& b);
  // Sample i's patch p as a dense row.
  Eigen::Map<const Eigen::RowVectorXf> patch(size_t i, int p) const;
};

}  // namespace dmlkit::learn
