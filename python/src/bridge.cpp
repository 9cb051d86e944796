// `--policy-file FILE.py:CLASS` and `--algorithm-file` (apps/dmlkit/python_plugin.h): the loader
// that turns a Python class into a registry entry. Inside a Python process the module installs it
// in the CLI (set_python_loader), so run_cli from Python never loads the embedded-Python plugin;
// the plugin (embed_plugin.cpp), in the `dmlkit` program, fetches the same table from the capsule
// `_dmlkit._python_loader`.
#include "bindings.h"
#include "dmlkit/python_plugin.h"
#include "python_error.h"

namespace dmlkit::python {

cluster::PolicyEntry python_policy_entry(py::handle cls);        // cluster_policy.cpp
influence::AlgorithmEntry python_algorithm_entry(py::handle cls);  // influence_algorithm.cpp

namespace {

py::object load_class(const std::string& spec, const char* kind) {
  return py::module_::import("dmlkit._loader").attr("load_class")(spec, kind);
}

cluster::PolicyEntry load_policy(const std::string& spec) {
  py::gil_scoped_acquire gil;
  try {
    return python_policy_entry(load_class(spec, "policy"));
  } catch (py::error_already_set& e) {
    throw python_error(e, "");
  }
}

influence::AlgorithmEntry load_algorithm(const std::string& spec) {
  py::gil_scoped_acquire gil;
  try {
    return python_algorithm_entry(load_class(spec, "algorithm"));
  } catch (py::error_already_set& e) {
    throw python_error(e, "");
  }
}

const app::PythonLoader kLoader{app::kPythonLoaderAbi, &load_policy, &load_algorithm};

}  // namespace

void bind_loader(py::module_& m) {
  app::set_python_loader(&kLoader);
  m.attr("_python_loader") = py::capsule(static_cast<const void*>(&kLoader), "dmlkit.PythonLoader");
  m.def("take_last_python_exception", [] {
    py::object e = last_python_exception();
    last_python_exception() = py::object();
    return e ? e : py::none();
  });
}

}  // namespace dmlkit::python
