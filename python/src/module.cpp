// The extension module dmlkit._dmlkit; the public API is the package around it (python/dmlkit/).
#include "bindings.h"
#include "core/error.h"

PYBIND11_MODULE(_dmlkit, m) {
  m.doc() = "dmlkit's C++ core: the CLI in-process, the registries, and the seams for Python policies";
  m.attr("__version__") = DMLKIT_VERSION;
  // Bad input anywhere in the toolkit (core/error.h): dmlkit.Error, a ValueError.
  pybind11::register_exception<dmlkit::Error>(m, "Error", PyExc_ValueError);
  dmlkit::python::bind_cli(m);
  dmlkit::python::bind_registries(m);
  dmlkit::python::bind_cluster(m);
  dmlkit::python::bind_influence(m);
  dmlkit::python::bind_loader(m);
}
