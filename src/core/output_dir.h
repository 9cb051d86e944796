// Writes a run's output folder atomically: files go into a hidden sibling staging folder, and
// commit() renames it into place (replacing an older folder of the same name). If the run fails
// before commit(), the destructor removes the staging folder, so no half-written output is left.
#pragma once
#include <string>

namespace dmlkit {

class OutputDir {
 public:
  explicit OutputDir(std::string final_path);
  ~OutputDir();
  OutputDir(const OutputDir&) = delete;
  OutputDir& operator=(const OutputDir&) = delete;

  // Writes `content` to `name` inside the staging folder; throws Error on I/O failure.
  void write(const std::string& name, const std::string& content);
  // Moves the staging folder to the final path. Returns the final path.
  const std::string& commit();
  const std::string& final_path() const { return final_path_; }

 private:
  std::string final_path_;
  std::string staging_path_;
  bool committed_ = false;
};

// Writes one file atomically (temporary file in the same folder, then rename).
void write_file_atomic(const std::string& path, const std::string& content);
// Reads a whole file; throws Error(path, 0, "", "cannot open file") if it cannot.
std::string read_file(const std::string& path);

}  // namespace dmlkit
