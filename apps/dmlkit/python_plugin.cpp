// Loads the embedded-Python plugin on first use (python_plugin.h).
#include "dmlkit/python_plugin.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <mutex>

#include "core/data_dir.h"
#include "core/error.h"

#ifndef DMLKIT_PYTHON_PLUGIN_PATH
#define DMLKIT_PYTHON_PLUGIN_PATH ""  // built without python/ (DMLKIT_BUILD_PYTHON=OFF)
#endif

namespace dmlkit::app {
namespace {

const PythonLoader* g_in_process = nullptr;

// $DMLKIT_PYTHON_PLUGIN; else, installed (make install), PREFIX/lib/dmlkit/ beside PREFIX/bin;
// else the build's.
std::string plugin_path() {
  if (const char* env = std::getenv("DMLKIT_PYTHON_PLUGIN"); env && *env) return env;
  if (std::string installed = installed_path("lib/dmlkit/libdmlkit_python.so"); !installed.empty()) return installed;
  return DMLKIT_PYTHON_PLUGIN_PATH;
}

const PythonLoader* load_plugin() {
  const std::string path = plugin_path();
  if (path.empty()) throw Error("Python files need the Python plugin: rebuild with -DDMLKIT_BUILD_PYTHON=ON");
  // RTLD_GLOBAL: libpython's symbols must be visible to the extension modules the interpreter loads
  // (numpy, dmlkit's own), which do not link libpython. Never closed.
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!handle) {
    const char* why = dlerror();
    throw Error(path, 0, "",
                std::string("cannot load the Python plugin: ") + (why ? why : "unknown error") +
                    " (build it with the project, or set DMLKIT_PYTHON_PLUGIN)");
  }
  using Entry = const PythonLoader* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "dmlkit_python_plugin"));
  if (!entry) throw Error(path, 0, "", "not a dmlkit Python plugin (no dmlkit_python_plugin symbol)");
  const PythonLoader* table = entry();
  if (!table)
    throw Error(path, 0, "",
                "the embedded Python could not import the dmlkit package (message above; "
                "set DMLKIT_PYTHONPATH to the folder holding dmlkit/)");
  if (table->abi_version != kPythonLoaderAbi)
    throw Error(path, 0, "", "Python plugin of another version (rebuild the project)");
  return table;
}

const PythonLoader& loader() {
  if (g_in_process) return *g_in_process;
  static std::once_flag once;
  static const PythonLoader* table = nullptr;
  static std::exception_ptr failure;
  std::call_once(once, [] {
    try {
      table = load_plugin();
    } catch (...) {
      failure = std::current_exception();
    }
  });
  if (!table) std::rethrow_exception(failure);
  return *table;
}

}  // namespace

void set_python_loader(const PythonLoader* l) { g_in_process = l; }

void check_python_spec(const std::string& spec) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size())
    throw Error(spec + ": expected FILE.py:CLASS");
  const std::string path = spec.substr(0, colon);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw Error(path + ": no such file");
  if (::access(path.c_str(), R_OK) != 0)
    throw Error::from_system(path, "cannot read file", {errno, std::generic_category()});
}

std::string register_python_policy(const std::string& spec) {
  cluster::PolicyEntry entry = loader().load_policy(spec);
  std::string name = entry.name;
  cluster::register_policy(std::move(entry));
  return name;
}

std::string register_python_algorithm(const std::string& spec) {
  influence::AlgorithmEntry entry = loader().load_algorithm(spec);
  std::string name = entry.name;
  influence::register_algorithm(std::move(entry));
  return name;
}

std::vector<std::string> register_python_policies(const std::vector<std::string>& specs) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(register_python_policy(s));
  return names;
}

std::vector<std::string> register_python_algorithms(const std::vector<std::string>& specs) {
  std::vector<std::string> names;
  for (const auto& s : specs) names.push_back(register_python_algorithm(s));
  return names;
}

void append_missing(std::vector<std::string>& list, const std::vector<std::string>& names) {
  for (const auto& n : names)
    if (std::find(list.begin(), list.end(), n) == list.end()) list.push_back(n);
}

}  // namespace dmlkit::app
