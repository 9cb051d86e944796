// OutputDir never deletes what dmlkit did not write (issue 11, defect 0).
#include "core/output_dir.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace fs = std::filesystem;
using dmlkit::Error;
using dmlkit::OutputDir;

namespace {

class OutputDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("dmlkit-outdir-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string p(const std::string& name) const { return (root_ / name).string(); }
  static void put(const std::string& path, const std::string& content) { std::ofstream(path) << content; }
  static std::string get(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  static void write_output(const std::string& dir, const std::string& content) {
    OutputDir out(dir);
    out.write("results.json", content);
    out.commit();
  }
  // Expects `f` to throw a dmlkit::Error whose message contains `needle`.
  template <typename F>
  static void expect_refused(F f, const std::string& needle) {
    try {
      f();
      ADD_FAILURE() << "not refused (expected '" << needle << "')";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << "not one line: " << e.what();
    }
  }
  fs::path root_;
};

TEST_F(OutputDirTest, NewFolderGetsMarkerListingItsFiles) {
  write_output(p("out"), "{}");
  EXPECT_EQ(get(p("out/results.json")), "{}");
  const std::string marker = get(p("out/") + dmlkit::kOutputMarker);
  EXPECT_NE(marker.find("\nresults.json\n"), std::string::npos) << marker;
}

TEST_F(OutputDirTest, StreamedFileIsWrittenAndListed) {
  OutputDir out(p("out"));
  out.write_streamed("rounds.csv", [](std::ostream& o) { o << "time_s\n1.000\n"; });
  expect_refused([&] { out.write_streamed("bad", [](std::ostream& o) { o.setstate(std::ios::badbit); }); },
                 "write failed");
  expect_refused([&] { out.write_streamed("a/b.csv", [](std::ostream&) {}); }, "not a plain output file name");
  out.commit();
  EXPECT_EQ(get(p("out/rounds.csv")), "time_s\n1.000\n");
  const std::string marker = get(p("out/") + dmlkit::kOutputMarker);
  EXPECT_NE(marker.find("\nrounds.csv\n"), std::string::npos) << marker;
  EXPECT_EQ(marker.find("bad"), std::string::npos) << marker;
  EXPECT_FALSE(fs::exists(p("out/bad")));
}

TEST_F(OutputDirTest, ReplacesPreviousOutputAndEmptyFolder) {
  write_output(p("out"), "old");
  put(p("out/results.json"), "old, still ours");
  write_output(p("out"), "new");
  EXPECT_EQ(get(p("out/results.json")), "new");
  fs::create_directories(p("empty"));
  write_output(p("empty"), "x");
  EXPECT_EQ(get(p("empty/results.json")), "x");
  for (const auto& e : fs::directory_iterator(root_))  // no staging or moved-aside folder left
    EXPECT_TRUE(e.path().filename() == "out" || e.path().filename() == "empty") << e.path();
}

TEST_F(OutputDirTest, RefusesFolderWithUserFilesBeforeAnyWork) {
  fs::create_directories(p("mine"));
  put(p("mine/thesis.tex"), "precious");
  expect_refused([&] { OutputDir out(p("mine")); }, "not a dmlkit output");
  EXPECT_EQ(get(p("mine/thesis.tex")), "precious");
  EXPECT_FALSE(fs::exists(p(".mine.tmp-" + std::to_string(::getpid()))));
}

TEST_F(OutputDirTest, RefusesPreviousOutputThatGainedAUserFile) {
  write_output(p("out"), "old");
  put(p("out/notes.txt"), "mine");
  expect_refused([&] { OutputDir out(p("out")); }, "'notes.txt', which dmlkit did not write");
  EXPECT_EQ(get(p("out/notes.txt")), "mine");
  EXPECT_EQ(get(p("out/results.json")), "old");
}

TEST_F(OutputDirTest, RefusesAUserFileAddedDuringTheRun) {
  write_output(p("out"), "old");
  OutputDir out(p("out"));
  out.write("results.json", "new");
  put(p("out/notes.txt"), "mine");
  expect_refused([&] { out.commit(); }, "notes.txt");
  EXPECT_EQ(get(p("out/notes.txt")), "mine");
  EXPECT_EQ(get(p("out/results.json")), "old");
}

TEST_F(OutputDirTest, RefusesAFileTheMarkerDoesNotList) {
  fs::create_directories(p("out/sub"));
  put(p("out/") + dmlkit::kOutputMarker, "# forged\nsub\n");
  expect_refused([&] { OutputDir out(p("out")); }, "'sub'");  // a folder is never ours
  EXPECT_TRUE(fs::exists(p("out/sub")));
}

TEST_F(OutputDirTest, RefusesRootWorkingFolderAndItsParents) {
  const fs::path cwd = fs::current_path();
  fs::create_directories(p("work/sub"));
  fs::current_path(p("work/sub"));
  expect_refused([&] { OutputDir out("."); }, "is the working folder");
  expect_refused([&] { OutputDir out(fs::current_path().string()); }, "is the working folder");
  expect_refused([&] { OutputDir out(".."); }, "holds the working folder");
  expect_refused([&] { OutputDir out("/"); }, "is the root folder");
  fs::current_path(cwd);
}

TEST_F(OutputDirTest, RefusesAFolderHoldingAnInput) {
  write_output(p("out"), "old");  // even a previous output, once an input lives in it
  put(p("out/workload.csv"), "name\n");
  expect_refused([&] { OutputDir out(p("out"), {p("out/workload.csv")}); }, "holds the input");
  fs::create_directories(p("data/traces"));
  expect_refused([&] { OutputDir out(p("data"), {p("data/traces/a.csv")}); }, "holds the input");
  expect_refused([&] { dmlkit::check_output_target(p("data/traces"), {p("data/traces")}); }, "holds the input");
  EXPECT_NO_THROW(dmlkit::check_output_target(p("data/traces/out"), {p("data/traces/a.csv")}));
}

TEST_F(OutputDirTest, RefusesAFileAndASymlink) {
  put(p("file"), "x");
  expect_refused([&] { OutputDir out(p("file")); }, "not a folder");
  fs::create_directories(p("real"));
  fs::create_directory_symlink(p("real"), p("link"));
  expect_refused([&] { OutputDir out(p("link")); }, "symbolic link");
}

TEST(TextFile, NormaliseDropsBomAndCrlf) {
  std::string s =
      "\xEF\xBB\xBF"
      "a,b\r\n1,2\r\nlone\rcr\n";
  dmlkit::normalise_text(s);
  EXPECT_EQ(s, "a,b\n1,2\nlone\rcr\n");
  std::string plain = "a\nb";
  dmlkit::normalise_text(plain);
  EXPECT_EQ(plain, "a\nb");
}

}  // namespace
