// Tests of the IDX reader: valid plain and gzip files, and the errors (wrong magic, truncated
// data, mismatched counts); the CLI side is tests/apps/continual/idx_cli_test.cpp.
#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "continual/idx_reader.h"
#include "core/error.h"
#include "expect_error.h"

namespace dmlkit::continual {
namespace {

namespace fs = std::filesystem;

std::string idx_bytes(uint8_t type, std::vector<uint32_t> dims, size_t data_bytes, uint8_t fill = 1) {
  std::string s = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int k = 3; k >= 0; --k) s.push_back(static_cast<char>((d >> (8 * k)) & 0xff));
  s.append(data_bytes, static_cast<char>(fill));
  return s;
}

class IdxFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dmlkit_idx_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string plain(const std::string& name, const std::string& bytes) {
    const auto p = (dir_ / name).string();
    std::ofstream(p, std::ios::binary) << bytes;
    return p;
  }
  std::string gz(const std::string& name, const std::string& bytes) {
    const auto p = (dir_ / name).string();
    gzFile f = gzopen(p.c_str(), "wb");
    gzwrite(f, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(f);
    return p;
  }
  fs::path dir_;
};

TEST_F(IdxFiles, ReadsPlainAndGzipFiles) {
  const auto a = read_idx(plain("a.idx", idx_bytes(8, {2, 3, 4}, 24, 7)), 3);
  EXPECT_EQ(a.dims, (std::vector<uint32_t>{2, 3, 4}));
  EXPECT_EQ(a.data.size(), 24u);
  EXPECT_EQ(a.data[5], 7);
  const auto b = read_idx(gz("b.gz", idx_bytes(8, {5}, 5, 3)), 1);
  EXPECT_EQ(b.dims, (std::vector<uint32_t>{5}));
  const auto set = read_idx_images(gz("i.gz", idx_bytes(8, {5, 2, 2}, 20)), gz("l.gz", idx_bytes(8, {5}, 5, 3)));
  EXPECT_EQ(set.size(), 5u);
  EXPECT_EQ(set.rows, 2);
  EXPECT_EQ(set.labels[4], 3);
}

TEST_F(IdxFiles, RejectsWrongMagicTruncationAndMismatches) {
  const auto wrong = plain("w", "PK\x03\x04 not idx");
  expect_error([&] { read_idx(wrong, 3); }, wrong, "magic");
  const auto ndims = plain("n", idx_bytes(8, {4}, 4));
  expect_error([&] { read_idx(ndims, 3); }, ndims, "magic");
  const auto type = plain("t", idx_bytes(0x0d, {4}, 16));
  expect_error([&] { read_idx(type, 1); }, type, "magic");
  const auto trunc = gz("tr.gz", idx_bytes(8, {10, 28, 28}, 100));
  expect_error([&] { read_idx(trunc, 3); }, trunc, "data");
  const auto header = plain("h", idx_bytes(8, {10, 28, 28}, 0).substr(0, 9));
  expect_error([&] { read_idx(header, 3); }, header, "dims");
  const auto trailing = plain("x", idx_bytes(8, {2}, 3));
  expect_error([&] { read_idx(trailing, 1); }, trailing, "data");
  const auto labels = plain("l", idx_bytes(8, {3}, 3));
  expect_error([&] { read_idx_images(plain("i", idx_bytes(8, {4, 1, 1}, 4)), labels); }, labels, "dims");
  const auto big = plain("b", idx_bytes(8, {4}, 4, 12));
  expect_error([&] { read_idx_images(plain("i2", idx_bytes(8, {4, 1, 1}, 4)), big); }, big, "data");
  expect_error([&] { read_idx((dir_ / "missing").string(), 1); }, (dir_ / "missing").string(), "");
}

}  // namespace
}  // namespace dmlkit::continual
