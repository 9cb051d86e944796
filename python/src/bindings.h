// The pybind11 extension `dmlkit._dmlkit` (python/CMakeLists.txt): what each binding file adds.
// The package's Python code (python/dmlkit/) builds the public API on top of it.
#pragma once
#include <pybind11/pybind11.h>

#include "cluster/model/placement.h"

// A placement is a class of its own in Python (dmlkit.cluster.Placement), not a list copied at
// every access.
PYBIND11_MAKE_OPAQUE(dmlkit::cluster::Placement)

namespace dmlkit::python {

namespace py = pybind11;

void bind_cli(py::module_& m);          // run_cli: the CLI in-process (cli.cpp)
void bind_registries(py::module_& m);   // every family's registry as Python lists (registries.cpp)
void bind_cluster(py::module_& m);      // views, placements, Python policies (cluster_policy.cpp)
void bind_cluster_run(py::module_& m);  // the cluster run entry in-process (cluster_run.cpp)
void bind_influence(py::module_& m);    // Python influence algorithms (influence_algorithm.cpp)
void bind_loader(py::module_& m);       // --policy-file inside Python, and the plugin's bridge (bridge.cpp)

// The run entries of influence, football and continual in-process (<family>_run.cpp).
void bind_influence_run(py::module_& m);
void bind_football_run(py::module_& m);
void bind_continual_run(py::module_& m);
// The run entries of comm, ps and gnn in-process (comm_run.cpp).
void bind_iteration_runs(py::module_& m);

}  // namespace dmlkit::python
