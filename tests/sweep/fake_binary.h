// A stand-in for the dmlkit binary in the runner tests: a shell script that logs every call and,
// for the value of --x, writes a results.json into --out (x = 2 always fails with exit 1, x = 3
// fails on its first call only, x = 4 fails with exit 2 (bad input), x = 5 exits 0 without output).
#pragma once
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace dmlkit::sweep::test {

class FakeBinary {
 public:
  explicit FakeBinary(const std::string& dir) : dir_(dir) {
    std::filesystem::create_directories(dir);
    path_ = dir + "/fake-dmlkit";
    std::ofstream s(path_);
    s << R"(#!/bin/sh
here=$(dirname "$0")
out=""; x=""
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift ;;
    --x=*) x="${1#--x=}" ;;
  esac
  shift
done
echo "$x" >> "$here/calls.log"
case "$x" in
  2) echo "dmlkit: cell 2 always fails" >&2; exit 1 ;;
  3) if [ ! -e "$here/failed-once-3" ]; then touch "$here/failed-once-3"; echo "dmlkit: flaky" >&2; exit 1; fi ;;
  4) echo "dmlkit: bad input" >&2; exit 2 ;;
  5) exit 0 ;;
esac
tmp="$(dirname "$out")/.tmp-$x-$$"
mkdir -p "$tmp"
printf '{"schema_version": 2, "record_kind": "policy", "records": [{"name": "p", "seed": 1, "metrics": {"m": %s}}]}\n' "$x" > "$tmp/results.json"
mv "$tmp" "$out"
)";
    s.close();
    chmod(path_.c_str(), 0755);
  }
  const std::string& path() const { return path_; }
  // The values of --x of every call so far, in order.
  std::string calls() const {
    std::ifstream in(dir_ + "/calls.log");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  size_t call_count(const std::string& x) const {
    std::istringstream in(calls());
    size_t n = 0;
    for (std::string line; std::getline(in, line);)
      if (line == x) ++n;
    return n;
  }

 private:
  std::string dir_;
  std::string path_;
};

}  // namespace dmlkit::sweep::test
