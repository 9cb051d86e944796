// The extension module dmlkit._dmlkit; the public API is the package around it (python/dmlkit/).
#include <dlfcn.h>

#include <filesystem>
#include <string>

#include "bindings.h"
#include "core/data_dir.h"
#include "core/error.h"

namespace {

// Installed (make install) as PREFIX/<DMLKIT_PYTHON_INSTALL_DIR>/dmlkit/_dmlkit...so, the module
// reads PREFIX's data and plugins (core/data_dir.h) whichever interpreter imports it; built, the
// build's.
void note_installed_prefix() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&note_installed_prefix), &info) == 0 || info.dli_fname == nullptr) return;
  const std::string package =
      std::filesystem::absolute(info.dli_fname).lexically_normal().parent_path().string();  // .../dmlkit
  const std::string suffix = std::string("/") + DMLKIT_PYTHON_INSTALL_DIR + "/dmlkit";
  if (package.size() <= suffix.size() || package.compare(package.size() - suffix.size(), suffix.size(), suffix) != 0)
    return;
  dmlkit::set_installed_prefix(package.substr(0, package.size() - suffix.size()));
}

}  // namespace

PYBIND11_MODULE(_dmlkit, m) {
  note_installed_prefix();
  m.doc() = "dmlkit's C++ core: the CLI in-process, the registries, and the seams for Python policies";
  m.attr("__version__") = DMLKIT_VERSION;
  // Bad input anywhere in the toolkit (core/error.h): dmlkit.Error, a ValueError.
  pybind11::register_exception<dmlkit::Error>(m, "Error", PyExc_ValueError);
  dmlkit::python::bind_cli(m);
  dmlkit::python::bind_registries(m);
  dmlkit::python::bind_cluster(m);
  dmlkit::python::bind_cluster_run(m);
  dmlkit::python::bind_influence(m);
  dmlkit::python::bind_influence_run(m);
  dmlkit::python::bind_football_run(m);
  dmlkit::python::bind_continual_run(m);
  dmlkit::python::bind_loader(m);
  dmlkit::python::bind_iteration_runs(m);
}
