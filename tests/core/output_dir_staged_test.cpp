// OutputDir::staged_path: a file another program writes (ffmpeg's clips) is listed in the marker
// and moved with the folder; one that was never written makes commit() fail.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "core/output_dir.h"

namespace fs = std::filesystem;

TEST(OutputDirStaged, ExternalFilesAreListedAndMissingOnesRefused) {
  const fs::path root = fs::temp_directory_path() / ("dmlkit-staged-" + std::to_string(::getpid()));
  fs::remove_all(root);
  fs::create_directories(root);
  {
    dmlkit::OutputDir out((root / "ok").string());
    const std::string clip = out.staged_path("clip.mp4");
    std::ofstream(clip) << "bytes";
    out.write("list.txt", "clip.mp4\n");
    out.commit();
  }
  EXPECT_TRUE(fs::exists(root / "ok" / "clip.mp4"));
  std::ifstream marker(root / "ok" / dmlkit::kOutputMarker);
  const std::string m((std::istreambuf_iterator<char>(marker)), std::istreambuf_iterator<char>());
  EXPECT_NE(m.find("clip.mp4\n"), std::string::npos);
  {
    dmlkit::OutputDir out((root / "bad").string());
    (void)out.staged_path("never.mp4");
    EXPECT_THROW(out.commit(), dmlkit::Error);
    EXPECT_THROW(out.staged_path("a/b"), dmlkit::Error);
  }
  EXPECT_FALSE(fs::exists(root / "bad"));
  fs::remove_all(root);
}
