// Helpers shared by the live-mode tests: submitting sleep jobs, reading job records, running the
// controller in a background thread.
#pragma once
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "core/subprocess.h"
#include "live/controller.h"
#include "live/slurm_names.h"
#include "slurm_lab.h"

namespace dmlkit::live::test {

// A batch script that sleeps $1 seconds (written into the lab folder).
inline std::string sleep_script(const SlurmLab& lab) {
  const std::string path = lab.dir() + "/sleep-job.sh";
  std::ofstream(path) << "#!/bin/sh\nsleep \"$1\"\n";
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

inline int64_t submit_sleep(ClusterBackend& slurm, const SlurmLab& lab, int nodes, int gpus_per_node, double seconds,
                            const std::string& comment = "") {
  JobRequest q;
  q.nodes = nodes;
  q.gpus_per_node = gpus_per_node;
  q.comment = comment;
  q.script = sleep_script(lab);
  q.script_args = {std::to_string(seconds)};
  q.work_dir = lab.dir();
  return slurm.submit(q);
}

inline std::map<int64_t, SlurmJob> jobs_by_id(ClusterBackend& slurm) {
  std::map<int64_t, SlurmJob> m;
  for (auto& j : slurm.jobs()) m[j.id] = j;
  return m;
}

// Polls until pred() is true or timeout_s passes; returns pred()'s last value. A Slurm query in
// pred() that fails (slurmctld slow or restarting under load) counts as "not yet".
template <typename Pred>
bool wait_for(Pred pred, double timeout_s, double poll_s = 0.2) {
  auto holds = [&] {
    try {
      return static_cast<bool>(pred());
    } catch (const SlurmError&) {
      return false;
    }
  };
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  while (std::chrono::steady_clock::now() < end) {
    if (holds()) return true;
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_s));
  }
  return holds();
}

// A program run in the background (run_process in a thread, through `sh -c 'exec ...'` so its pid
// is known), to be signalled when a condition holds rather than after a guessed delay.
class BackgroundProcess {
 public:
  BackgroundProcess(std::vector<std::string> argv, const std::string& pid_file, double timeout_s)
      : pid_file_(pid_file) {
    std::string cmd = "echo $$ > '" + pid_file + "'; exec";
    for (const auto& a : argv) cmd += " '" + a + "'";  // test-controlled arguments, no quotes inside
    thread_ = std::thread([this, cmd, timeout_s] { result_ = run_process({"/bin/sh", "-c", cmd}, {}, timeout_s); });
  }
  ~BackgroundProcess() {
    signal(SIGKILL);
    wait();
  }
  // Sends `sig` to the program (once its pid is known); false if it is not running.
  bool signal(int sig) {
    if (done_) return false;
    std::ifstream in(pid_file_);
    long pid = 0;
    if (!(in >> pid) || pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), sig) == 0;
  }
  const ProcessResult& wait() {
    if (thread_.joinable()) thread_.join();
    done_ = true;
    return result_;
  }

 private:
  std::string pid_file_;
  bool done_ = false;
  std::thread thread_;
  ProcessResult result_;
};

// Decisions of `action` in a --decision-log file so far (lines being written are skipped).
inline int logged_decisions(const std::string& path, const std::string& action) {
  std::ifstream in(path);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) n += line.find("\"action\":\"" + action + "\"") != std::string::npos;
  return n;
}

inline bool all_completed(ClusterBackend& slurm, const std::vector<int64_t>& ids) {
  try {
    auto jobs = jobs_by_id(slurm);
    for (int64_t id : ids)
      if (!jobs.count(id) || jobs[id].state != "COMPLETED") return false;
    return true;
  } catch (const SlurmError&) {
    return false;
  }
}

// Runs a Controller's loop in a thread until stop() is called (or the object is destroyed).
class BackgroundController {
 public:
  BackgroundController(Controller& c, std::function<void(const SlurmSnapshot&, double)> on_poll = {}) : controller_(c) {
    thread_ = std::thread([this, on_poll] {
      try {
        controller_.run([this] { return stop_.load(); }, on_poll);
      } catch (const std::exception& e) {
        error_ = e.what();
      }
    });
  }
  ~BackgroundController() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  const std::string& error() const { return error_; }

 private:
  Controller& controller_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::string error_;
};

inline std::string alloc_key(const SlurmJob& j) {
  std::vector<std::string> parts;
  for (const auto& a : j.allocation) parts.push_back(a.node + ":" + std::to_string(a.gpus));
  std::sort(parts.begin(), parts.end());
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ",") + p;
  return s;
}

inline std::string sorted_key(const std::string& placement) {
  std::vector<std::string> parts;
  std::stringstream ss(placement);
  std::string p;
  while (std::getline(ss, p, ',')) parts.push_back(p);
  std::sort(parts.begin(), parts.end());
  std::string s;
  for (const auto& q : parts) s += (s.empty() ? "" : ",") + q;
  return s;
}

}  // namespace dmlkit::live::test
