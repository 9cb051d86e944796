// A truncated IDX file given to `dmlkit continual replay --data-dir`: exit status 2, one line naming
// the file, no output folder (tests/continual/idx_reader_test.cpp tests the reader itself).
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/cli_test_util.h"

namespace dmlkit::testing {
namespace {

// An IDX header (type, dims) followed by `data_bytes` bytes, gzip-compressed into `path`.
void write_idx_gz(const std::string& path, uint8_t type, const std::vector<uint32_t>& dims, size_t data_bytes) {
  std::string s = {0, 0, static_cast<char>(type), static_cast<char>(dims.size())};
  for (uint32_t d : dims)
    for (int k = 3; k >= 0; --k) s.push_back(static_cast<char>((d >> (8 * k)) & 0xff));
  s.append(data_bytes, 1);
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, s.data(), static_cast<unsigned>(s.size()));
  gzclose(f);
}

TEST(IdxCli, TruncatedFileExitsWithStatus2AndNamesTheFile) {
  TempDir dir("idx-cli");
  write_idx_gz(dir.path("train-images-idx3-ubyte.gz"), 8, {10, 28, 28}, 500);  // truncated
  write_idx_gz(dir.path("train-labels-idx1-ubyte.gz"), 8, {10}, 10);
  const auto r = run_cli({"continual", "replay", "--data-dir", dir.path(), "--out", dir.path("out")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("train-images-idx3-ubyte.gz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1);  // one line
  EXPECT_FALSE(std::filesystem::exists(dir.path("out")));
}

}  // namespace
}  // namespace dmlkit::testing
