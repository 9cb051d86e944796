// What a run needs to be regenerated (issue 20): the full command line, the dmlkit version, and
// every input file it read with its size and SHA-256. The CLI starts an invocation
// (begin_invocation(argv)); every file read through core's readers (read_file, read_text_file,
// CsvTable::read, yaml::load_file) is noted; Results writes the lot into results.json as
// "invocation", and HtmlReport prints it at the foot of every report.
// One process-wide log, guarded by a mutex (files may be read on parallel_for threads); a new
// invocation clears it (the tests run many commands in one process, one after another).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dmlkit {

struct InputFile {
  std::string path;  // as read; under the bundled data folder: "data/<relative path>"
  uint64_t bytes = 0;
  std::string sha256;  // lowercase hex
};

// Lowercase hex SHA-256 of `bytes` (OpenSSL's libcrypto).
std::string sha256_hex(std::string_view bytes);

// Starts a new invocation: records argv (argv[0] replaced by "dmlkit") and forgets earlier inputs.
void begin_invocation(const std::vector<std::string>& argv);
// Notes that `path` was read with these contents (the same path twice is kept once).
void note_input_file(const std::string& path, std::string_view contents);

// `argv` as one shell-quoted string: plain words as they are, anything else in single quotes.
std::string shell_command_line(const std::vector<std::string>& argv);
// The command line as one shell-quoted string ("" when no invocation was started).
std::string invocation_command_line();
// Input files in the order first read (invocation_json() sorts them by path).
std::vector<InputFile> invocation_inputs();
// {"argv": [...], "command_line": "...", "input_files": [{"path", "bytes", "sha256"}, ...]}, or
// null when no invocation was started (a library caller that never went through the CLI).
nlohmann::ordered_json invocation_json();

// Checks an invocation record read back from a file (`path`, e.g. a results.json given to `dmlkit
// report`) against the shape invocation_json() writes: an object, a string command_line, and
// input_files each with a string path and sha256 and a byte count. Throws Error naming the field.
void check_invocation_json(const nlohmann::json& invocation, const std::string& path);

}  // namespace dmlkit
