// The CLI in-process: the package's command functions (python/dmlkit/_cli.py) build the argument
// vector the CLI would get and call run_cli, so Python takes exactly the CLI's arguments, checks
// and outputs.
#include <pybind11/stl.h>

#include <sstream>
#include <string>
#include <vector>

#include "bindings.h"
#include "dmlkit/cli.h"

namespace dmlkit::python {

void bind_cli(py::module_& m) {
  m.def(
      "run_cli",
      [](const std::vector<std::string>& args) {
        std::vector<const char*> argv;
        argv.reserve(args.size());
        for (const auto& a : args) argv.push_back(a.c_str());
        std::ostringstream out, err;
        int code = 0;
        {
          // Runs may take long and may call Python policies from worker threads: release the GIL.
          py::gil_scoped_release release;
          code = app::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
        }
        return py::make_tuple(code, out.str(), err.str());
      },
      py::arg("argv"),
      "Runs the dmlkit CLI with argv (argv[0] is the program name); returns (exit status, stdout, stderr).");
}

}  // namespace dmlkit::python
