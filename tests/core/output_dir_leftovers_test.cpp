// Issue 36, items 12 and 13: what an interrupted run or a full disk leaves behind, and how it fails.
// - A run killed before commit() leaves its staging folder `.NAME.tmp-PID`; the next run into the
//   same parent removes it (and only staging folders of dead processes of this host).
// - write_file_atomic is write, fsync, rename: a full disk keeps the old file, leaves no temporary
//   file, and is an environment failure (exit status 3), not bad input.
// - A stale `checkpoint.json.tmp-PID` (a writer cut short) neither blocks --resume nor a rerun.
// - Text in Latin-1/Windows-1252 reads as UTF-8; a byte no encoding explains is refused by line.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"
#include "core/output_dir.h"

namespace fs = std::filesystem;
using dmlkit::Error;
using dmlkit::OutputDir;

namespace {

class Leftovers : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("dmlkit-leftovers-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  std::string p(const std::string& name) const { return (root_ / name).string(); }
  static std::string get(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  // Runs `work` in a child process that ends without unwinding (as a killed run does); returns its
  // pid, reaped, so the process no longer exists.
  template <class F>
  static pid_t run_and_vanish(F work) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      work();
      ::_exit(0);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return pid;
  }
  std::vector<std::string> hidden_entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(root_))
      if (e.path().filename().string()[0] == '.') names.push_back(e.path().filename().string());
    return names;
  }
  fs::path root_;
};

TEST_F(Leftovers, AKilledRunsStagingFolderIsRemovedByTheNextRunIntoTheSameParent) {
  const pid_t dead = run_and_vanish([&] {
    auto* out = new OutputDir(p("first"));  // never destroyed: the process dies mid-run
    out->write("results.json", "partial");
  });
  const std::string staging = p(".first.tmp-" + std::to_string(dead));
  ASSERT_TRUE(fs::is_directory(staging));
  // A folder of the same form that no dmlkit run staged, and one of a live process: kept.
  fs::create_directories(p(".notes.tmp-" + std::to_string(dead)));
  std::ofstream(p(".notes.tmp-" + std::to_string(dead)) + "/mine.txt") << "mine";
  {
    OutputDir live(p("live"));
    OutputDir next(p("second"));
    next.write("results.json", "{}");
    next.commit();
    EXPECT_FALSE(fs::exists(staging)) << "stale staging folder left";
    EXPECT_TRUE(fs::is_directory(p(".live.tmp-" + std::to_string(::getpid()))));
  }
  EXPECT_EQ(get(p(".notes.tmp-" + std::to_string(dead)) + "/mine.txt"), "mine");
  EXPECT_EQ(hidden_entries(), std::vector<std::string>{".notes.tmp-" + std::to_string(dead)});
}

TEST_F(Leftovers, AStagingFolderOfAnotherHostIsKept) {
  const pid_t dead = run_and_vanish([] {});
  const std::string other = p(".cell.tmp-" + std::to_string(dead));
  fs::create_directories(other);
  std::ofstream(other + "/" + dmlkit::kOutputMarker)
      << "# dmlkit staging folder of process " << dead << " on some-other-host\n";
  OutputDir next(p("out"));
  EXPECT_TRUE(fs::is_directory(other));  // a shared file system: that process may still run there
}

// A full disk (here: the file-size limit, which fails write(2) with EFBIG as ENOSPC would) while
// writing a file atomically: the old file stays whole, no temporary file is left, and the error
// is an environment failure.
TEST_F(Leftovers, AFailedAtomicWriteKeepsTheOldFileAndIsAnEnvironmentFailure) {
  const std::string file = p("checkpoint.json");
  dmlkit::write_file_atomic(file, "old checkpoint");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    const rlimit limit{4096, 4096};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    try {
      dmlkit::write_file_atomic(file, std::string(1 << 20, 'x'));
    } catch (const Error& e) {
      ::_exit(e.kind() == Error::Kind::Environment && e.exit_status() == dmlkit::kExitEnvironment ? 10 : 11);
    }
    ::_exit(12);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 10) << "11: not an environment failure; 12: no error";
  EXPECT_EQ(get(file), "old checkpoint");
  for (const auto& e : fs::directory_iterator(root_))
    EXPECT_EQ(e.path().filename(), "checkpoint.json") << "left behind: " << e.path();
}

TEST_F(Leftovers, AStaleCheckpointTmpNeitherBlocksResumeNorARerun) {
  const std::string dir = p("train");
  dmlkit::prepare_incremental_output(dir, {"checkpoint.json", "best.json"}, false);
  dmlkit::write_file_atomic(dir + "/checkpoint.json", "step 10");
  const pid_t dead = run_and_vanish([] {});
  const std::string tmp = dir + "/checkpoint.json.tmp-" + std::to_string(dead);
  std::ofstream(tmp) << "step 2";                     // cut short by a full disk
  EXPECT_NO_THROW(dmlkit::check_output_target(dir));  // what the CLI checks before --resume
  dmlkit::prepare_incremental_output(dir, {"checkpoint.json", "best.json"}, true);
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_EQ(get(dir + "/checkpoint.json"), "step 10");
  // A folder with a stale temporary file is also replaced by a new run (the file is dmlkit's).
  std::ofstream(tmp) << "step 2";
  EXPECT_NO_THROW(dmlkit::prepare_incremental_output(dir, {"checkpoint.json"}, false));
  EXPECT_FALSE(fs::exists(tmp));
  // A user's file of the same form is not dmlkit's: refused.
  std::ofstream(dir + "/notes.txt.tmp-1") << "mine";
  EXPECT_THROW(dmlkit::check_output_target(dir), Error);
}

TEST(SystemErrors, AFullDiskIsTheEnvironmentsAMissingFolderTheInputs) {
  EXPECT_EQ(Error::from_system("f", "write failed", std::make_error_code(std::errc::no_space_on_device)).exit_status(),
            dmlkit::kExitEnvironment);
  EXPECT_EQ(Error::from_system("f", "write failed", std::make_error_code(std::errc::io_error)).exit_status(),
            dmlkit::kExitEnvironment);
  EXPECT_EQ(Error::from_system("f", "cannot create", std::make_error_code(std::errc::permission_denied)).kind(),
            Error::Kind::Environment);
  EXPECT_EQ(Error::from_system("f", "cannot open", std::make_error_code(std::errc::no_such_file_or_directory)).kind(),
            Error::Kind::BadInput);
  EXPECT_EQ(Error("f", 3, "x", "bad").exit_status(), dmlkit::kExitBadInput);
}

TEST(TextEncoding, Latin1AndWindows1252ReadAsUtf8) {
  std::string latin1 = "minute,text\n10',M\xFCller scores \x96 1:0 \x80\n";
  dmlkit::decode_text(latin1, "lines.csv");
  EXPECT_EQ(latin1, "minute,text\n10',M\xC3\xBCller scores \xE2\x80\x93 1:0 \xE2\x82\xAC\n");
  std::string utf8 = "M\xC3\xBCller \xE2\x80\x93 \xF0\x9F\x98\x80";
  const std::string before = utf8;
  dmlkit::decode_text(utf8, "x");
  EXPECT_EQ(utf8, before);
  const dmlkit::CsvTable t = dmlkit::CsvTable::parse("a,b\n1,Gr\xF6\xDF\x65\n", "t.csv");
  EXPECT_EQ(std::string(t.str(0, 1)),
            "Gr\xC3\xB6\xC3\x9F"
            "e");
}

TEST(TextEncoding, AByteNoEncodingExplainsIsRefusedWithItsLine) {
  std::string undefined = "minute,text\n1',ok\n2',bad \x81 byte\n";
  try {
    dmlkit::decode_text(undefined, "lines.csv");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "lines.csv");
    EXPECT_EQ(e.line(), 3);
    EXPECT_NE(std::string(e.what()).find("0x81"), std::string::npos) << e.what();
  }
  std::string mixed = "M\xC3\xBCller\nM\xFCller\n";  // UTF-8 on line 1, Latin-1 on line 2
  try {
    dmlkit::decode_text(mixed, "m.csv");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.line(), 2);
  }
}

}  // namespace
