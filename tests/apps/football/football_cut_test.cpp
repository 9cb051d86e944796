// FFmpeg cutting on a clip the test generates with FFmpeg's testsrc source (frame N has luma 16 + N,
// so the first frame of a clip tells where it was cut): stream copy from a keyframe, re-encoding
// elsewhere, clamping, the playlist; and the errors (segment outside the video, missing video).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "apps/cli_test_util.h"
#include "core/subprocess.h"

using dmlkit::testing::expect_bad_input;
using dmlkit::testing::run_cli;
using dmlkit::testing::slurp;
using dmlkit::testing::TempDir;

namespace {

bool have_ffmpeg() { return dmlkit::run_process({"ffmpeg", "-version"}, {}, 30).ok(); }

// 20 s at 10 fps, 64x64, keyframes every 2 s; luma of frame N = 16 + N (limited range), which
// decodes to the full-range gray level N * 255 / 219.
std::string make_video(const TempDir& dir) {
  const std::string path = dir.path("match.mp4");
  const auto r = dmlkit::run_process({"ffmpeg",
                                      "-nostdin",
                                      "-v",
                                      "error",
                                      "-y",
                                      "-f",
                                      "lavfi",
                                      "-i",
                                      "testsrc=size=64x64:rate=10:duration=20",
                                      "-vf",
                                      "geq=lum='N+16':cb=128:cr=128",
                                      "-c:v",
                                      "libx264",
                                      "-qp",
                                      "0",
                                      "-g",
                                      "20",
                                      "-keyint_min",
                                      "20",
                                      "-sc_threshold",
                                      "0",
                                      "-pix_fmt",
                                      "yuv420p",
                                      path},
                                     {}, 120);
  EXPECT_TRUE(r.ok()) << r.err;
  return path;
}

// Mean luma of the first frame and the number of frames of a clip.
std::pair<double, int> first_luma_and_frames(const std::string& clip) {
  const auto r = dmlkit::run_process(
      {"ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-f", "rawvideo", "-pix_fmt", "gray", "-"}, {}, 60);
  EXPECT_TRUE(r.ok()) << r.err;
  const size_t frame = 64 * 64;
  if (r.out.size() < frame) return {-1, 0};
  double sum = 0;
  for (size_t i = 0; i < frame; ++i) sum += static_cast<unsigned char>(r.out[i]);
  return {sum / frame, static_cast<int>(r.out.size() / frame)};
}

double gray_of_frame(int n) { return n * 255.0 / 219; }

std::string segments_file(const TempDir& dir, const std::string& segments) {
  return dir.write("segments.json", R"({"segments": [)" + segments + "]}");
}

}  // namespace

TEST(FootballCut, CutsAtTheRightTimesWithCopyOrReencode) {
  if (!have_ffmpeg()) GTEST_SKIP() << "ffmpeg not installed (scripts/install-deps.sh installs it)";
  TempDir dir("football-cut");
  const auto video = make_video(dir);
  const auto segs = segments_file(dir, R"(
    {"label": "goal", "start_s": 4.0, "end_s": 6.0, "minute": "5'", "text": "a goal"},
    {"label": "card", "start_s": 7.3, "end_s": 9.1},
    {"label": "corner", "start_s": -3, "end_s": 1.5})");
  auto r =
      run_cli({"football", "cut", "--video", video, "--segments", segs, "--out", dir.path("out"), "--format", "json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j.size(), 3u);
  EXPECT_TRUE(j[0]["stream_copy"].get<bool>());   // 4.0 s is a keyframe
  EXPECT_FALSE(j[1]["stream_copy"].get<bool>());  // 7.3 s is not
  EXPECT_TRUE(j[2]["clamped"].get<bool>());
  EXPECT_DOUBLE_EQ(j[2]["start_s"].get<double>(), 0.0);
  auto [luma0, frames0] = first_luma_and_frames(dir.path("out/clip-001-goal.mp4"));
  EXPECT_NEAR(luma0, gray_of_frame(40), 1.5);  // frame 40 = 4.0 s
  EXPECT_NEAR(frames0, 20, 1);
  auto [luma1, frames1] = first_luma_and_frames(dir.path("out/clip-002-card.mp4"));
  EXPECT_NEAR(luma1, gray_of_frame(73), 1.5);  // frame 73 = 7.3 s
  EXPECT_NEAR(frames1, 18, 1);
  auto [luma2, frames2] = first_luma_and_frames(dir.path("out/clip-003-corner.mp4"));
  EXPECT_NEAR(luma2, gray_of_frame(0), 1.5);
  EXPECT_NEAR(frames2, 15, 1);
  const auto m3u = slurp(dir.path("out/highlights.m3u"));
  EXPECT_EQ(m3u.rfind("#EXTM3U\n", 0), 0u);
  EXPECT_NE(m3u.find("#EXTINF:2,goal 5': a goal\nclip-001-goal.mp4\n"), std::string::npos);
  EXPECT_NE(slurp(dir.path("out/concat.txt")).find("file 'clip-002-card.mp4'"), std::string::npos);
}

TEST(FootballCut, SegmentOutsideTheVideoOrMissingVideoIsOneLineExit2) {
  if (!have_ffmpeg()) GTEST_SKIP() << "ffmpeg not installed (scripts/install-deps.sh installs it)";
  TempDir dir("football-cut-bad");
  const auto video = make_video(dir);
  const auto segs = segments_file(dir, R"({"label": "goal", "start_s": 1, "end_s": 3},
                                          {"label": "goal", "start_s": 25, "end_s": 30})");
  expect_bad_input({"football", "cut", "--video", video, "--segments", segs, "--out", dir.path("out")}, dir,
                   {"segments[1]", "outside the video"});
  expect_bad_input({"football", "cut", "--video", dir.path("nosuch.mp4"), "--segments", segs, "--out", dir.path("out")},
                   dir, {"nosuch.mp4", "no such video file"});
  const auto bad = dir.write("bad.json", R"({"segments": [{"label": "goal", "start_s": 5, "end_s": 2}]})");
  expect_bad_input({"football", "cut", "--video", video, "--segments", bad, "--out", dir.path("out")}, dir,
                   {"segments[0].end_s", "after start_s"});
}

// Issue 36 item 8: feed text with line breaks goes into the playlist as one title line, so it can
// add no entry (a URL, /etc/passwd) or directive.
TEST(FootballCut, FeedTextCannotAddPlaylistEntries) {
  if (!have_ffmpeg()) GTEST_SKIP() << "ffmpeg not installed (scripts/install-deps.sh installs it)";
  TempDir dir("football-cut-inject");
  const auto video = make_video(dir);
  const auto segs = segments_file(dir, R"({"label": "goal", "start_s": 4.0, "end_s": 6.0, "minute": "5'\r\n#EXTINF:1,x",
              "text": "a goal\nhttp://evil.example/x.mp4\n/etc/passwd\u001b[2J"})");
  auto r = run_cli({"football", "cut", "--video", video, "--segments", segs, "--out", dir.path("out")});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto m3u = slurp(dir.path("out/highlights.m3u"));
  EXPECT_EQ(std::count(m3u.begin(), m3u.end(), '\n'), 3) << "#EXTM3U, one #EXTINF and one file:\n" << m3u;
  EXPECT_EQ(m3u.find("\n/etc/passwd"), std::string::npos) << m3u;
  EXPECT_EQ(m3u.find("\nhttp://"), std::string::npos) << m3u;
  EXPECT_EQ(m3u.find('\x1b'), std::string::npos) << m3u;
  EXPECT_NE(m3u.find("\nclip-001-goal.mp4\n"), std::string::npos) << m3u;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "the terminal table shows the text escaped";
}
