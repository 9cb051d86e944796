// Writes a run's output folder atomically: files go into a hidden sibling staging folder, and
// commit() renames it into place. If the run fails before commit(), the destructor removes the
// staging folder, so no half-written output is left.
//
// dmlkit never deletes what it did not write. Every output folder holds a marker file,
// `.dmlkit-output`, listing the files dmlkit wrote there. An existing target is replaced only if it
// is an empty folder or a previous dmlkit output that holds nothing but the files its marker lists;
// anything else is refused with an Error (exit status 2). The root folder, the working folder (or a
// folder holding it) and a folder holding one of the run's inputs are never accepted.
#pragma once
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

namespace dmlkit {

// Name of the marker file in every output folder.
inline constexpr const char* kOutputMarker = ".dmlkit-output";

// Throws Error("--out PATH: reason") unless `path` may receive a new output (see above).
// `input_paths` are the files and folders the run reads; `path` must not be or hold any of them.
void check_output_target(const std::string& path, const std::vector<std::string>& input_paths = {});

class OutputDir {
 public:
  // Checks the target with check_output_target (so construct it before the run's work) and creates
  // the staging folder.
  explicit OutputDir(std::string final_path, std::vector<std::string> input_paths = {});
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // Writes `content` to `name` (a plain file name) inside the staging folder; throws Error on I/O
  // failure.
  void write(const std::string& name, const std::string& content);
  // Writes `name` as write() does, but lets `fill` stream the content into the file (no copy of a
  // large file in memory); throws Error if the stream fails.
  void write_streamed(const std::string& name, const std::function<void(std::ostream&)>& fill);
  // For a file another program writes (ffmpeg's clips): registers `name` (a plain file name) as
  // written and returns its path in the staging folder. The caller must create the file there
  // before commit(); if it does not, commit() fails naming it.
  std::string staged_path(const std::string& name);
  // Checks the target again, writes the marker and moves the staging folder to the final path,
  // replacing a previous dmlkit output there. Returns the final path.
  const std::string& commit();
  const std::string& final_path() const { return final_path_; }

 private:
  std::string final_path_;
  std::string staging_path_;
  std::vector<std::string> input_paths_;
  std::vector<std::string> written_;
  bool committed_ = false;
};

// For a run that writes its files one by one as it goes (training checkpoints it can resume from)
// instead of through an OutputDir: checks `path` as check_output_target does -- unless `resume`
// and it already is a dmlkit output folder, which is kept with its files --, creates it and writes
// its marker listing `files` (every file name the run may write there; each is then written with
// write_file_atomic). Throws Error("--out PATH: reason").
void prepare_incremental_output(const std::string& path, const std::vector<std::string>& files, bool resume);

// Writes one file atomically (temporary file in the same folder, then rename).
void write_file_atomic(const std::string& path, const std::string& content);
// Reads a whole file; throws Error(path, 0, "", "cannot open file") if it cannot.
std::string read_file(const std::string& path);
// Reads a text file as read_file does, then decode_text and normalise_text: what every text reader
// of the toolkit uses, so a file saved by a spreadsheet program (Latin-1, BOM, CRLF) reads as the
// plain UTF-8 file does.
std::string read_text_file(const std::string& path);
// Text in UTF-8 is kept as it is; text that is not valid UTF-8 and holds no UTF-8 multi-byte
// character is read as Windows-1252 (Latin-1 and its printable 0x80-0x9F) and converted to UTF-8.
// A byte Windows-1252 leaves undefined, or a file mixing UTF-8 with single-byte text: Error(path,
// line) asking for UTF-8. Every string a run writes (JSON, CSV, HTML) is then valid UTF-8.
void decode_text(std::string& text, const std::string& path);
// Drops a leading UTF-8 byte-order mark and turns CRLF line ends into LF (in place).
void normalise_text(std::string& text);

}  // namespace dmlkit
