// Clip cutting with FFmpeg (cut.h).
#include "football/cut.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/csv.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "core/table.h"
#include "core/text_safety.h"
#include "football/labels.h"

namespace dmlkit::football {
namespace {

std::string seconds_text(double s) { return fixed(s, 3); }

std::string first_line(const std::string& s) {
  const size_t nl = s.find('\n');
  return nl == std::string::npos ? s : s.substr(0, nl);
}

ProcessResult run_tool(const std::vector<std::string>& argv, double timeout_s) {
  ProcessResult r = run_process(argv, {}, timeout_s);
  if (!r.started) throw Error(argv[0] + ": cannot be run (install Debian ffmpeg: scripts/install-deps.sh)");
  return r;
}

}  // namespace

VideoInfo probe_video(const std::string& path, double timeout_s) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path, 0, "", "no such video file");
  VideoInfo info;
  ProcessResult r = run_tool(
      {"ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=noprint_wrappers=1:nokey=1", path},
      timeout_s);
  if (!r.ok() || !parse_double(first_line(r.out), info.duration_s) || !(info.duration_s > 0))
    throw Error(path, 0, "", "not a readable video (ffprobe: " + first_line(r.err.empty() ? r.out : r.err) + ")");
  r = run_tool({"ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,flags", "-of",
                "csv=print_section=0", path},
               timeout_s);
  if (!r.ok()) throw Error(path, 0, "", "ffprobe cannot list its packets: " + first_line(r.err));
  std::stringstream lines(r.out);
  for (std::string l; std::getline(lines, l);) {
    const size_t comma = l.find(',');
    double t = 0;
    if (comma == std::string::npos || l.find('K', comma) == std::string::npos) continue;
    if (parse_double(l.substr(0, comma), t)) info.keyframes_s.push_back(t);
  }
  std::sort(info.keyframes_s.begin(), info.keyframes_s.end());
  if (info.keyframes_s.empty()) throw Error(path, 0, "", "no video stream");
  return info;
}

std::vector<Clip> cut_segments(const std::string& video, const VideoInfo& info, const std::vector<Segment>& segments,
                               const std::string& segments_path, OutputDir& out, const CutOptions& o) {
  if (o.mode != "auto" && o.mode != "copy" && o.mode != "reencode")
    throw Error("--mode: unknown mode '" + o.mode + "' (known: auto, copy, reencode)");
  std::vector<Clip> clips;
  for (size_t i = 0; i < segments.size(); ++i) {
    const Segment& s = segments[i];
    if (s.start_s >= info.duration_s || s.end_s <= 0)
      throw Error(segments_path, 0, "segments[" + std::to_string(i) + "]",
                  "[" + seconds_text(s.start_s) + ", " + seconds_text(s.end_s) + "] s lies outside the video (0 to " +
                      seconds_text(info.duration_s) + " s)");
    Clip c;
    c.segment = s;
    c.start_s = std::max(0.0, s.start_s);
    c.end_s = std::min(info.duration_s, s.end_s);
    c.clamped = c.start_s != s.start_s || c.end_s != s.end_s;
    // The last keyframe at or before the start (+ tolerance).
    double key = info.keyframes_s.front();
    for (double k : info.keyframes_s)
      if (k <= c.start_s + o.keyframe_tolerance_s) key = k;
    c.stream_copy = o.mode == "copy" || (o.mode == "auto" && std::abs(key - c.start_s) <= o.keyframe_tolerance_s);
    if (c.stream_copy) c.start_s = std::min(key, c.start_s);
    char name[64];
    std::snprintf(name, sizeof name, "clip-%03zu-%s.mp4", i + 1, coarse_labels()[s.label].c_str());
    c.file = name;
    clips.push_back(c);
  }
  for (const auto& c : clips) {
    const std::string dest = out.staged_path(c.file);
    std::vector<std::string> argv{"ffmpeg",
                                  "-nostdin",
                                  "-v",
                                  "error",
                                  "-y",
                                  "-ss",
                                  seconds_text(c.start_s),
                                  "-i",
                                  video,
                                  "-t",
                                  seconds_text(c.end_s - c.start_s)};
    if (c.stream_copy) {
      for (const char* a : {"-map", "0:v:0", "-map", "0:a?", "-c", "copy", "-avoid_negative_ts", "make_zero"})
        argv.push_back(a);
    } else {
      for (const char* a : {"-map", "0:v:0", "-map", "0:a?", "-c:v", "libx264", "-preset", "veryfast", "-crf", "18",
                            "-pix_fmt", "yuv420p", "-c:a", "aac"})
        argv.push_back(a);
    }
    argv.push_back(dest);
    const ProcessResult r = run_tool(argv, o.timeout_s);
    if (!r.ok())
      throw Error(video, 0, "",
                  "ffmpeg failed on " + c.file + (r.timed_out ? " (timed out)" : "") + ": " + first_line(r.err));
  }
  std::string m3u = "#EXTM3U\n", concat, csv = "file,label,minute,start_s,end_s,duration_s,stream_copy,clamped,text\n";
  for (const auto& c : clips) {
    const std::string label = coarse_labels()[c.segment.label];
    // The title holds feed text: one line, whatever the feed held (core/text_safety.h).
    const std::string title = label + (c.segment.minute.empty() ? "" : " " + c.segment.minute) +
                              (c.segment.text.empty() ? "" : ": " + c.segment.text);
    m3u += "#EXTINF:" + std::to_string(static_cast<long>(std::lround(c.end_s - c.start_s))) + "," +
           playlist_line(title) + "\n" + c.file + "\n";
    concat += "file '" + c.file + "'\n";
    csv += csv_escape(c.file) + "," + label + "," + csv_escape(c.segment.minute) + "," + seconds_text(c.start_s) + "," +
           seconds_text(c.end_s) + "," + seconds_text(c.end_s - c.start_s) + "," + (c.stream_copy ? "1" : "0") + "," +
           (c.clamped ? "1" : "0") + "," + csv_escape(c.segment.text) + "\n";
  }
  out.write("highlights.m3u", m3u);
  out.write("concat.txt", concat);
  out.write("clips.csv", csv);
  return clips;
}

}  // namespace dmlkit::football
