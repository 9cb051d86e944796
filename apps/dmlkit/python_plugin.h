// Python classes on the command line: `--policy-file FILE.py:CLASS` (cluster simulate, compare,
// serve, replay) and `--algorithm-file FILE.py:CLASS` (influence run) load a dmlkit.cluster.Policy
// or dmlkit.influence.Algorithm subclass and register it by its name (docs/python.md).
//
// The CLI does not link libpython: the first such option loads build/lib/libdmlkit_python.so
// (installed: PREFIX/lib/dmlkit/) with dlopen (as learn/ loads libtorch), which starts an embedded
// interpreter, imports the `dmlkit` package of build/python (installed: the installed package) and
// asks its extension for the registry entry of the class. Inside a Python process (the module runs
// the CLI in-process), the module installs its own loader instead, so no second interpreter is ever
// loaded. Loading a Python file runs it, with the user's rights (docs/python.md).
#pragma once
#include <string>
#include <vector>

#include "cluster/policy.h"
#include "influence/algorithm.h"

namespace dmlkit::app {

// What the plugin (or the module) provides. Errors are thrown as dmlkit::Error.
struct PythonLoader {
  int abi_version = 0;
  // FILE.py:CLASS -> the entry of a dmlkit.cluster.Policy subclass.
  cluster::PolicyEntry (*load_policy)(const std::string& spec) = nullptr;
  // FILE.py:CLASS -> the entry of a dmlkit.influence.Algorithm subclass.
  influence::AlgorithmEntry (*load_algorithm)(const std::string& spec) = nullptr;
};
constexpr int kPythonLoaderAbi = 1;

// Loads FILE.py:CLASS and registers it (cluster::register_policy); returns its registered name.
std::string register_python_policy(const std::string& spec);
// The same for an influence algorithm (influence::register_algorithm).
std::string register_python_algorithm(const std::string& spec);
// The module's in-process loader (python/src/bridge.cpp); replaces the plugin.
void set_python_loader(const PythonLoader* loader);

// The options that name a Python file (without dashes): loading such a file runs its code with
// the user's rights.
inline constexpr const char* kPythonFileOptions[] = {"policy-file", "algorithm-file"};
// Checks FILE.py:CLASS without loading (running) the file: the form, and that FILE is a readable
// regular file. Throws Error as loading would for these. What `sweep plan` checks (cli.h).
void check_python_spec(const std::string& spec);

// Registers every FILE.py:CLASS of `specs`; returns their names in order.
std::vector<std::string> register_python_policies(const std::vector<std::string>& specs);
std::vector<std::string> register_python_algorithms(const std::vector<std::string>& specs);
// Appends each of `names` not already in `list`.
void append_missing(std::vector<std::string>& list, const std::vector<std::string>& names);

inline constexpr const char* kPolicyFileHelp =
    "A cluster policy written in Python, FILE.py:CLASS (a dmlkit.cluster.Policy subclass; repeatable): "
    "registered under its name and run (docs/python.md)";

}  // namespace dmlkit::app

// Exported by libdmlkit_python.so (C linkage: found with dlsym).
extern "C" const dmlkit::app::PythonLoader* dmlkit_python_plugin();
