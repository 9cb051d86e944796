// Test fixture for live mode: a private Slurm lab (scripts/slurm-lab.sh) in its own temporary
// folder, always torn down by the destructor (RAII), even when the test fails.
// Missing prerequisites (not root, Slurm or munge not installed) make the test FAIL with a clear
// message, unless DMLKIT_SKIP_LIVE_TESTS=1 is set (then it is skipped).
#pragma once
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "live/process.h"
#include "live/slurm_names.h"

namespace dmlkit::live::test {

#define DMLKIT_SLURM_LAB_SCRIPT DMLKIT_SOURCE_DIR "/scripts/slurm-lab.sh"

// Empty if every prerequisite is there; otherwise what is missing.
inline std::string missing_prerequisites() {
  std::string missing;
  if (geteuid() != 0) missing += " root";
  for (const char* tool : {"slurmctld", "slurmd", "munged", "sinfo", "squeue", "scontrol", "sbatch", "scancel"}) {
    const ProcessResult r = run_process({"sh", "-c", std::string("command -v ") + tool}, {}, 10);
    if (!r.ok()) missing += std::string(" ") + tool;
  }
  if (!std::filesystem::exists(DMLKIT_SLURM_LAB_SCRIPT)) missing += " scripts/slurm-lab.sh";
  return missing;
}

inline bool skip_live_tests() {
  const char* v = std::getenv("DMLKIT_SKIP_LIVE_TESTS");
  return v && std::string(v) == "1";
}

class SlurmLab {
 public:
  // partitions 2: `main` (the first half of the nodes, default; its jobs enter held) and `other`
  // (the rest; Slurm schedules its jobs itself). See scripts/slurm-lab.sh.
  SlurmLab(int nodes, int gpus_per_node, int partitions = 1) {
    char tmpl[] = "/tmp/dmlkit-lab-XXXXXX";
    if (!mkdtemp(tmpl)) return;
    dir_ = tmpl;
    // up: munged <= 10 s, slurmctld <= 2 x 30 s (it is restarted once if it does not answer),
    // nodes idle <= 30 s, or 30 s more after the slurmd of the nodes not idle restarted.
    const ProcessResult r =
        script({"up", dir_, std::to_string(nodes), std::to_string(gpus_per_node), std::to_string(partitions)}, 200);
    up_ = r.ok();
    if (!up_) error_ = "slurm-lab.sh up failed: " + r.err + r.out;
  }
  ~SlurmLab() {
    if (dir_.empty()) return;
    script({"down", dir_}, 120);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  SlurmLab(const SlurmLab&) = delete;
  SlurmLab& operator=(const SlurmLab&) = delete;

  bool up() const { return up_; }
  const std::string& error() const { return error_; }
  const std::string& dir() const { return dir_; }
  std::string conf() const { return dir_ + "/etc/slurm.conf"; }
  SlurmClientOptions client_options() const {
    SlurmClientOptions o;
    o.slurm_conf = conf();
    // Generous: on a loaded CI machine (2 cores, the rest of the suite at -j2) one squeue --json
    // took over a second; a command timing out is an error in a test's own queries.
    o.timeout_s = 20;
    return o;
  }
  ProcessResult script(std::vector<std::string> args, double timeout_s) const {
    args.insert(args.begin(), DMLKIT_SLURM_LAB_SCRIPT);
    args.insert(args.begin(), "bash");
    return run_process(args, {}, timeout_s);
  }
  // Node i dies: its slurmd, job steps and batch scripts are SIGKILLed; Slurm notices after
  // SlurmdTimeout (5 s in the lab) and requeues its jobs.
  bool kill_node(int i) const { return script({"kill-node", dir_, std::to_string(i)}, 30).ok(); }
  // Node i dies and Slurm is told at once (`scontrol update State=DOWN`) rather than noticing it
  // after SlurmdTimeout: for a test that needs a node down before it starts, not for the loss itself.
  bool kill_node_marked_down(int i) const {
    const std::string node = "node" + std::to_string(i);
    return kill_node(i) && run_process({"scontrol", "update", "NodeName=" + node, "State=DOWN", "Reason=killed"},
                                       {{"SLURM_CONF", conf()}}, 20)
                               .ok();
  }
  bool stop_ctld() const { return script({"stop-ctld", dir_}, 30).ok(); }
  bool start_ctld() const { return script({"start-ctld", dir_}, 60).ok(); }

 private:
  std::string dir_;
  bool up_ = false;
  std::string error_;
};

// Use at the top of a live test: fails (or skips) on missing prerequisites, then starts the lab.
#define DMLKIT_LIVE_LAB(var, nodes, gpus) DMLKIT_LIVE_LAB_PARTITIONS(var, nodes, gpus, 1)
#define DMLKIT_LIVE_LAB_PARTITIONS(var, nodes, gpus, partitions)                           \
  if (::dmlkit::live::test::skip_live_tests()) GTEST_SKIP() << "DMLKIT_SKIP_LIVE_TESTS=1"; \
  {                                                                                        \
    const std::string missing = ::dmlkit::live::test::missing_prerequisites();             \
    ASSERT_TRUE(missing.empty()) << "live tests need:" << missing                          \
                                 << " (run scripts/install-deps.sh as root, or set "       \
                                    "DMLKIT_SKIP_LIVE_TESTS=1 to skip them)";              \
  }                                                                                        \
  ::dmlkit::live::test::SlurmLab var(nodes, gpus, partitions);                             \
  ASSERT_TRUE(var.up()) << var.error()

}  // namespace dmlkit::live::test
