// Subprocesses for the live mode: the runner is core's (core/subprocess.h), shared by every module.
#pragma once
#include "core/subprocess.h"

namespace dmlkit::live {

using dmlkit::ProcessResult;
using dmlkit::run_process;

}  // namespace dmlkit::live
