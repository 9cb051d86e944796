// A Python exception as the toolkit's one error (core/error.h): the file and line of the
// traceback's last frame (for a SyntaxError: where the syntax is wrong), the exception's type and
// message, and what was being called. The CLI prints it as one line and exits with status 2.
// Header-only: used by the extension and by the CLI's embedded-Python plugin.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

#include "core/error.h"

namespace dmlkit::python {

// Keeps the original exception so that the Python API can chain it (`raise Error(...) from exc`):
// returned (and cleared) by take_last_python_exception(). Leaked on purpose: never destroyed after
// the interpreter.
inline pybind11::object& last_python_exception() {
  static auto* last = new pybind11::object();
  return *last;
}

// Call with the GIL held.
inline Error python_error(pybind11::error_already_set& e, const std::string& where) {
  namespace py = pybind11;
  std::string file;
  long line = 0;
  std::string type = "Exception", message;
  try {
    py::object value = e.value();
    type = py::str(e.type().attr("__name__"));
    message = py::str(value);
    if (py::isinstance(value, py::module_::import("builtins").attr("SyntaxError")) &&
        !value.attr("filename").is_none()) {
      file = py::str(value.attr("filename"));
      if (!value.attr("lineno").is_none()) line = value.attr("lineno").cast<long>();
      message = py::str(value.attr("msg"));
    } else if (e.trace()) {
      py::object tb = e.trace();
      while (!tb.attr("tb_next").is_none()) tb = tb.attr("tb_next");
      file = py::str(tb.attr("tb_frame").attr("f_code").attr("co_filename"));
      line = tb.attr("tb_lineno").cast<long>();
    }
    // A dmlkit.Error (raised by the package, e.g. its loader, or by a policy on purpose) carries
    // its own message, location included.
    if (type == "Error") {
      type.clear();
      file.clear();
      line = 0;
    }
    last_python_exception() = value;
  } catch (...) {
    // Formatting must not fail; keep what we have.
  }
  std::string text = type.empty() ? message : type + ": " + message;
  if (!where.empty()) text += " (in " + where + ")";
  return Error(file, line, "", text);
}

}  // namespace dmlkit::python
