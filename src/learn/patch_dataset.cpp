// Construction, subsetting and concatenation of PatchDataset with exact-duplicate merging.
#include "learn/patch_dataset.h"

#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

namespace dmlkit::learn {
namespace {

// Key of a row: its raw bytes, so only bit-identical rows are merged.
std::string row_key(const float* row, int len) {
  return std::string(reinterpret_cast<const char*>(row), sizeof(float) * static_cast<size_t>(len));
}

}  // namespace

PatchDataset PatchDataset::from_patches(const Matrix& patches, int num_patches, std::vector<float> labels,
                                        bool merge_duplicates) {
  if (num_patches <= 0 || static_cast<size_t>(patches.rows()) != labels.size() * num_patches)
    throw std::invalid_argument("PatchDataset: rows must equal samples * num_patches");
  PatchDataset ds;
  ds.patch_len = static_cast<int>(patches.cols());
  ds.num_patches = num_patches;
  ds.labels = std::move(labels);
  ds.merge_duplicates = merge_duplicates;
  ds.patch_row.resize(patches.rows());
  std::map<std::string, int> seen;
  std::vector<Eigen::Index> keep;
  for (Eigen::Index r = 0; r < patches.rows(); ++r) {
    if (merge_duplicates) {
      auto [it, inserted] = seen.emplace(row_key(patches.row(r).data(), ds.patch_len), static_cast<int>(keep.size()));
      if (inserted) keep.push_back(r);
      ds.patch_row[r] = it->second;
    } else {
      ds.patch_row[r] = static_cast<int>(keep.size());
      keep.push_back(r);
    }
  }
  ds.unique_patches.resize(static_cast<Eigen::Index>(keep.size()), ds.patch_len);
  for (size_t k = 0; k < keep.size(); ++k) ds.unique_patches.row(k) = patches.row(keep[k]);
  return ds;
}

PatchDataset PatchDataset::subset(const std::vector<size_t>& indices) const {
  Matrix dense(static_cast<Eigen::Index>(indices.size() * num_patches), patch_len);
  std::vector<float> lab;
  lab.reserve(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    const size_t i = indices.at(k);
    if (i >= size()) throw std::out_of_range("PatchDataset::subset: index out of range");
    for (int p = 0; p < num_patches; ++p) dense.row(k * num_patches + p) = patch(i, p);
    lab.push_back(labels[i]);
  }
  return from_patches(dense, num_patches, std::move(lab), merge_duplicates);
}

PatchDataset PatchDataset::concat(const PatchDataset& a, const PatchDataset& b) {
  if (a.patch_len != b.patch_len || a.num_patches != b.num_patches)
    throw std::invalid_argument("PatchDataset::concat: shapes differ");
  const int P = a.num_patches;
  Matrix dense(static_cast<Eigen::Index>((a.size() + b.size()) * P), a.patch_len);
  std::vector<float> lab = a.labels;
  lab.insert(lab.end(), b.labels.begin(), b.labels.end());
  for (size_t i = 0; i < a.size(); ++i)
    for (int p = 0; p < P; ++p) dense.row(i * P + p) = a.patch(i, p);
  for (size_t i = 0; i < b.size(); ++i)
    for (int p = 0; p < P; ++p) dense.row((a.size() + i) * P + p) = b.patch(i, p);
  return from_patches(dense, P, std::move(lab), a.merge_duplicates || b.merge_duplicates);
}

Eigen::Map<const Eigen::RowVectorXf> PatchDataset::patch(size_t i, int p) const {
  const int row = patch_row[i * num_patches + p];
  return Eigen::Map<const Eigen::RowVectorXf>(unique_patches.row(row).data(), patch_len);
}

}  // namespace dmlkit::learn
