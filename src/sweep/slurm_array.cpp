// Job arrays on Slurm: submit, release held tasks, wait, resubmit lost cells; the task side
// (see slurm_array.h).
#include "sweep/slurm_array.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/error.h"
#include "core/output_dir.h"
#include "core/progress.h"

namespace fs = std::filesystem;

namespace dmlkit::sweep {

using nlohmann::ordered_json;

namespace {

std::string slurm_dir(const std::string& dir) { return (fs::path(dir) / "slurm").string(); }

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'')
      q += "'\\''";
    else
      q += c;
  }
  return q + "'";
}

std::string absolute(const std::string& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? fs::path(p) : a).lexically_normal().string();
}

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// The batch script every task runs: the same binary, the sweep folder, this submission's file.
std::string task_script(const std::string& binary, const std::string& dir, const RunOptions& run) {
  std::string s =
      "#!/bin/sh\n# dmlkit sweep: one task of a job array (docs/sweeps.md). Written by `dmlkit sweep run --slurm`.\n";
  s += "exec " + shell_quote(binary) + " sweep task " + shell_quote(dir) + " --submission \"$1\" --retries " +
       std::to_string(run.retries);
  if (run.cell_timeout_s > 0) s += " --cell-timeout " + fmt::format("{}", run.cell_timeout_s);
  s += "\n";
  return s;
}

}  // namespace

std::vector<Submission> read_submissions(const std::string& dir) {
  std::vector<Submission> out;
  for (int k = 0;; ++k) {
    const fs::path p = fs::path(slurm_dir(dir)) / fmt::format("submission-{}.json", k);
    std::error_code ec;
    if (!fs::is_regular_file(p, ec)) break;
    const auto j = ordered_json::parse(read_text_file(p.string()), nullptr, false);
    if (j.is_discarded() || !j.contains("job_id") || !j.contains("tasks"))
      throw Error(p.string(), 0, "", "not a sweep submission");
    Submission s;
    s.index = k;
    s.job_id = j["job_id"].get<int64_t>();
    s.tasks = j["tasks"].get<std::vector<std::vector<std::string>>>();
    out.push_back(std::move(s));
  }
  return out;
}

Submission submit_array(const std::string& dir_in, const std::vector<Cell>& cells, const RunOptions& run,
                        const SlurmArrayOptions& options, slurm::ClusterBackend& slurm) {
  const std::string dir = absolute(dir_in);
  Submission sub;
  std::vector<std::string> todo;
  for (const auto& c : cells)
    if (!cell_finished(dir, c.name)) todo.push_back(c.name);
  if (todo.empty()) return sub;
  const size_t chunk = std::max<size_t>(1, options.chunk);
  for (size_t i = 0; i < todo.size(); i += chunk)
    sub.tasks.emplace_back(todo.begin() + static_cast<long>(i),
                           todo.begin() + static_cast<long>(std::min(todo.size(), i + chunk)));
  std::error_code ec;
  fs::create_directories(slurm_dir(dir), ec);
  if (ec) throw Error(slurm_dir(dir), 0, "", "cannot create folder: " + ec.message());
  sub.index = static_cast<int>(read_submissions(dir).size());
  const std::string binary = absolute(run.binary.empty() ? self_executable() : run.binary);
  const std::string script = (fs::path(slurm_dir(dir)) / "task.sh").string();
  write_file_atomic(script, task_script(binary, dir, run));
  fs::permissions(script,
                  fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  ec);
  const std::string file = (fs::path(slurm_dir(dir)) / fmt::format("submission-{}.json", sub.index)).string();
  ordered_json j;
  j["job_id"] = 0;  // not submitted yet
  j["tasks"] = sub.tasks;
  write_file_atomic(file, j.dump(2) + "\n");
  for (const auto& name : todo) {
    CellState s = read_state(dir, name);
    s.status = "queued";
    write_state(dir, name, s);
  }
  slurm::JobRequest q;
  q.name = options.job_name;
  q.nodes = 1;
  q.script = script;
  q.script_args = {file};
  q.output = (fs::path(slurm_dir(dir)) / "task-%A_%a.out").string();
  q.work_dir = dir;
  q.held = false;
  q.array = "0-" + std::to_string(sub.tasks.size() - 1);
  if (options.max_parallel > 0) q.array += "%" + std::to_string(options.max_parallel);
  sub.job_id = slurm.submit(q);
  j["job_id"] = sub.job_id;
  write_file_atomic(file, j.dump(2) + "\n");
  // A site's job_submit plugin may hold every new job (the lab's does, for the live controller):
  // release the array at once, so that --no-wait leaves it running.
  try {
    for (const auto& t : array_task_counts({sub}, slurm))
      if (t.held > 0) slurm.release(sub.job_id);
  } catch (const slurm::SlurmError&) {
    // the wait loop (or the next `sweep run`) releases it
  }
  return sub;
}

std::vector<TaskCounts> array_task_counts(const std::vector<Submission>& subs, slurm::ClusterBackend& slurm,
                                          const std::string& dir) {
  std::vector<TaskCounts> out;
  const auto jobs = slurm.jobs();
  for (const auto& s : subs) {
    TaskCounts t;
    t.job_id = s.job_id;
    for (const auto& j : jobs) {
      if (j.array_job_id != s.job_id && j.id != s.job_id) continue;
      // NODE_FAIL is final for an array task unless Slurm requeues it (then it shows as PENDING).
      if (j.finished() || j.state == "NODE_FAIL") continue;
      if (!dir.empty() && j.array_task_id >= 0 && static_cast<size_t>(j.array_task_id) < s.tasks.size()) {
        bool all_ended = true;
        for (const auto& name : s.tasks[static_cast<size_t>(j.array_task_id)])
          if (!cell_finished(dir, name) && read_state(dir, name).status != "failed") all_ended = false;
        if (all_ended) continue;
      }
      // The pending record of tasks not started yet stands for several of them ("3-9%2").
      size_t n = 1;
      if (j.array_task_id < 0 && !j.array_tasks.empty()) {
        n = 0;
        std::string spec = j.array_tasks.substr(0, j.array_tasks.find('%'));
        for (size_t pos = 0; pos <= spec.size();) {
          const size_t end = std::min(spec.find(',', pos), spec.size());
          const std::string part = spec.substr(pos, end - pos);
          const size_t dash = part.find('-');
          try {
            n += dash == std::string::npos
                     ? 1
                     : static_cast<size_t>(std::stoll(part.substr(dash + 1)) - std::stoll(part.substr(0, dash)) + 1);
          } catch (...) {
            n += 1;
          }
          pos = end + 1;
        }
      }
      if (j.active_running())
        t.running += n;
      else if (j.held())
        t.held += n;
      else
        t.pending += n;
    }
    out.push_back(t);
  }
  return out;
}

ArrayWaitReport wait_array(const std::string& dir_in, const std::vector<Cell>& cells, const RunOptions& run,
                           const SlurmArrayOptions& options, slurm::ClusterBackend& slurm) {
  const std::string dir = absolute(dir_in);
  ArrayWaitReport rep;
  rep.cells.cells = cells.size();
  const double t0 = now_s();
  ProgressOptions po;
  po.out = run.progress;
  po.is_terminal = run.terminal;
  ProgressBar bar("sweep (slurm)", static_cast<double>(cells.size()), po);
  size_t done_at_start = 0;
  for (const auto& c : cells)
    if (cell_finished(dir, c.name)) ++done_at_start;
  rep.cells.skipped = done_at_start;
  std::set<int64_t> released;
  for (;;) {
    const auto subs = read_submissions(dir);
    size_t active = 0;
    size_t running = 0;
    bool reachable = true;
    try {
      for (const auto& t : array_task_counts(subs, slurm, dir)) {
        active += t.pending + t.running + t.held;
        running += t.running;
        if (t.held > 0) {  // a job_submit plugin held it (the lab does): let it run
          try {
            slurm.release(t.job_id);
          } catch (const slurm::SlurmError&) {
            // released meanwhile, or not ours to release: the next poll tells
          }
          released.insert(t.job_id);
        }
      }
    } catch (const slurm::SlurmError& e) {
      if (e.kind() == slurm::SlurmError::Kind::Auth) throw Error(std::string("slurm: ") + e.what());
      reachable = false;  // slurmctld restarting: wait and look again
    }
    size_t done = 0, failed = 0;
    std::vector<const Cell*> lost;
    for (const auto& c : cells) {
      if (cell_finished(dir, c.name)) {
        ++done;
        continue;
      }
      const CellState s = read_state(dir, c.name);
      if (s.status == "failed")
        ++failed;
      else
        lost.push_back(&c);
    }
    std::string detail = fmt::format("done {} failed {} running {}", done, failed, running);
    const size_t finished_now = done + failed - std::min(done + failed, done_at_start);
    const size_t left = cells.size() - done - failed;
    if (finished_now > 0 && left > 0)
      detail +=
          ", ETA " + format_duration((now_s() - t0) / static_cast<double>(finished_now) * static_cast<double>(left));
    bar.update(static_cast<double>(done + failed), detail);
    if (reachable && active == 0) {
      if (!lost.empty() && rep.resubmitted < options.resubmits) {
        std::vector<Cell> again;
        for (const Cell* c : lost) again.push_back(*c);
        submit_array(dir, again, run, options, slurm);
        ++rep.resubmitted;
        rep.lost_cells += lost.size();
      } else {
        rep.cells.done = done - std::min(done, done_at_start);
        rep.cells.failed = failed;
        rep.unfinished = lost.size();
        break;
      }
    }
    if (options.max_wait_s > 0 && now_s() - t0 > options.max_wait_s) {
      rep.gave_up = true;
      rep.cells.done = done - std::min(done, done_at_start);
      rep.cells.failed = failed;
      rep.unfinished = lost.size();
      break;
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(options.poll_s));
  }
  bar.finish();
  for (const auto& c : cells) {
    if (cell_finished(dir, c.name)) continue;
    const CellState s = read_state(dir, c.name);
    if (s.status == "failed")
      rep.cells.failed_cells.push_back(c.name + ": " + s.error + " (" + std::to_string(s.attempts) +
                                       (s.attempts == 1 ? " attempt)" : " attempts)"));
  }
  rep.cells.wall_s = now_s() - t0;
  return rep;
}

RunReport run_array_task(const std::string& dir, const std::string& submission_file, int64_t task_index,
                         const RunOptions& run) {
  const auto j = ordered_json::parse(read_text_file(submission_file), nullptr, false);
  if (j.is_discarded() || !j.contains("tasks")) throw Error(submission_file, 0, "", "not a sweep submission");
  const auto tasks = j["tasks"].get<std::vector<std::vector<std::string>>>();
  if (task_index < 0 || static_cast<size_t>(task_index) >= tasks.size())
    throw Error(submission_file, 0, "tasks", "no task " + std::to_string(task_index));
  const Plan plan = read_plan(dir);
  std::map<std::string, const Cell*> by_name;
  for (const auto& c : plan.cells) by_name[c.name] = &c;
  std::vector<Cell> mine;
  for (const auto& name : tasks[static_cast<size_t>(task_index)]) {
    auto it = by_name.find(name);
    if (it == by_name.end()) throw Error(submission_file, 0, "tasks", "cell '" + name + "' is not in the plan");
    mine.push_back(*it->second);
  }
  RunOptions o = run;
  o.jobs = 1;
  return run_cells(dir, mine, o);
}

}  // namespace dmlkit::sweep
