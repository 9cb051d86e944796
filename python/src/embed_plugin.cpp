// libdmlkit_python.so: the CLI's embedded Python (apps/dmlkit/python_plugin.h). Loaded with
// dlopen the first time a command is given a Python file; it starts the interpreter (Debian's
// libpython, the one /usr/bin/python3 runs), puts the package folder ($DMLKIT_PYTHONPATH, else
// the installed one beside this plugin, else the build's build/python) first on sys.path, imports
// dmlkit and returns the loader table of its extension. The GIL is released afterwards: policies
// are called from the simulator's threads, each taking it. The interpreter is never finalized
// (policies live until the process ends).
#include <dlfcn.h>
#include <pybind11/embed.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "dmlkit/python_plugin.h"

namespace py = pybind11;

namespace {

// Installed (make install), this plugin is PREFIX/lib/dmlkit/libdmlkit_python.so and the package
// PREFIX/<DMLKIT_PYTHON_INSTALL_DIR>/dmlkit: that folder, if it holds the package; else "".
std::string installed_package_dir() {
  namespace fs = std::filesystem;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&installed_package_dir), &info) == 0 || info.dli_fname == nullptr) return {};
  const fs::path lib = fs::absolute(info.dli_fname).lexically_normal().parent_path();
  if (lib.filename() != "dmlkit" || lib.parent_path().filename() != "lib") return {};
  const fs::path dir = lib.parent_path().parent_path() / DMLKIT_PYTHON_INSTALL_DIR;
  std::error_code ec;
  return fs::is_regular_file(dir / "dmlkit" / "__init__.py", ec) ? dir.string() : std::string();
}

// $DMLKIT_PYTHONPATH; else the installed package beside this plugin; else the build's.
std::string package_folder() {
  if (const char* env = std::getenv("DMLKIT_PYTHONPATH"); env && *env) return env;
  if (std::string installed = installed_package_dir(); !installed.empty()) return installed;
  return DMLKIT_PYTHON_PACKAGE_DIR;
}

const dmlkit::app::PythonLoader* start() {
  const std::string package_dir = package_folder();
  if (!Py_IsInitialized()) {
    // No Python signal handlers: Ctrl-C stays the CLI's (cluster serve stops cleanly on it).
    py::initialize_interpreter(false);
    PyEval_SaveThread();  // release the GIL; every call below takes it
    // The interpreter is never finalized: flush what a policy printed before the process ends.
    std::atexit([] {
      PyGILState_STATE state = PyGILState_Ensure();
      PyRun_SimpleString("import sys\nfor s in (sys.stdout, sys.stderr):\n    s and s.flush()\n");
      PyGILState_Release(state);
    });
  }
  py::gil_scoped_acquire gil;
  try {
    py::module_ sys = py::module_::import("sys");
    if (!py::hasattr(sys, "argv")) sys.attr("argv") = py::make_tuple("dmlkit");
    sys.attr("path").attr("insert")(0, package_dir);
    py::object ext = py::module_::import("dmlkit._dmlkit");
    auto capsule = py::reinterpret_borrow<py::capsule>(ext.attr("_python_loader"));
    return static_cast<const dmlkit::app::PythonLoader*>(capsule.get_pointer());
  } catch (py::error_already_set& e) {
    // Reported by the CLI as "cannot load the Python plugin ..." (null table).
    PyErr_Clear();
    std::fprintf(stderr, "dmlkit: Python: cannot import dmlkit from %s: %s\n", package_dir.c_str(), e.what());
    return nullptr;
  }
}

}  // namespace

extern "C" __attribute__((visibility("default"))) const dmlkit::app::PythonLoader* dmlkit_python_plugin() {
  static const dmlkit::app::PythonLoader* table = start();
  return table;
}
