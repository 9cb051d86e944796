// Cutting highlight clips out of a match video with FFmpeg (Debian `ffmpeg`), started through
// core/subprocess.h (argument vectors, no shell, a timeout). For each segment: the clip
// [start_s, end_s] clamped to the video ([0, duration]; a segment wholly outside it is an error);
// stream copy (`-c copy`, no quality loss, fast) when a keyframe lies within keyframe_tolerance_s
// of the start, since a copied clip can only start on a keyframe; otherwise re-encoded (libx264
// CRF 18, AAC) from an exact input seek. Mode "copy" always copies (the start moves back to the
// previous keyframe), "reencode" always re-encodes. The clips go with a highlights playlist
// (highlights.m3u) and an FFmpeg concat list (concat.txt: `ffmpeg -f concat -i concat.txt -c copy
// highlights.mp4` joins them).
#pragma once
#include <string>
#include <vector>

#include "core/output_dir.h"
#include "football/units.h"

namespace dmlkit::football {

struct VideoInfo {
  double duration_s = 0;
  std::vector<double> keyframes_s;  // video stream keyframe times, ascending
};

// ffprobe's duration and keyframes; Error(path, ...) if the file is missing or not a video.
VideoInfo probe_video(const std::string& path, double timeout_s = 120);

struct CutOptions {
  std::string mode = "auto";  // auto, copy, reencode
  double keyframe_tolerance_s = 0.05;
  double timeout_s = 600;     // per ffmpeg run
};

struct Clip {
  std::string file;
  Segment segment;
  double start_s = 0, end_s = 0;  // what was cut
  bool stream_copy = false;
  bool clamped = false;
};

// Checks every segment against the video first (Error "segments[i]: ... outside the video"), then
// cuts each into out (clip-NNN-<label>.mp4) and writes highlights.m3u, concat.txt and clips.csv.
std::vector<Clip> cut_segments(const std::string& video, const VideoInfo& info, const std::vector<Segment>& segments,
                               const std::string& segments_path, OutputDir& out, const CutOptions& options);

}  // namespace dmlkit::football
