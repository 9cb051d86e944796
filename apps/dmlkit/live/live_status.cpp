// `dmlkit cluster status --slurm [--state FILE]`: what a live controller (`cluster serve`) manages,
// read from its state file without contacting Slurm (docs/live-mode.md, "Operating it").
#include <chrono>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/table.h"
#include "dmlkit/commands.h"
#include "live/status.h"

namespace dmlkit::app {

namespace {

struct StatusOptions {
  bool slurm = false;
  std::string state = "dmlkit-live-state.json";
  std::string format = "table";
};

std::string ago(double wall_s, double now_s) {
  if (!(wall_s > 0)) return "never";
  return fixed(std::max(0.0, now_s - wall_s), 1) + " s ago";
}

int run_status(const StatusOptions& o, Context& ctx) {
  if (!o.slurm) throw Error("--slurm: live mode needs a backend; Slurm is the only one (give --slurm)");
  if (o.format != "table" && o.format != "json")
    throw Error("--format: expected table or json, got '" + o.format + "'");
  const live::LiveStatus st = live::read_live_status(o.state);
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["state"] = st.state_path;
    j["policy"] = st.policy;
    j["last_poll_wall_s"] = st.last_poll_wall_s;
    j["last_decision_wall_s"] = st.last_decision_wall_s;
    j["stopped_wall_s"] = st.stopped_wall_s;
    j["finished_jobs"] = st.finished_jobs;
    j["jobs"] = nlohmann::ordered_json::array();
    for (const auto& job : st.jobs)
      j["jobs"].push_back({{"slurm_id", job.slurm_id},
                           {"name", job.name},
                           {"status", job.status},
                           {"placement", job.placement},
                           {"gpus", job.gpus},
                           {"requested_gpus", job.requested_gpus},
                           {"attained_gpu_s", job.attained_gpu_s},
                           {"preemptions", job.preemptions},
                           {"retries", job.retries}});
    j["failed"] = nlohmann::ordered_json::array();
    for (const auto& f : st.failed)
      j["failed"].push_back({{"slurm_id", f.slurm_id}, {"name", f.name}, {"state", f.state}, {"retries", f.retries}});
    ctx.out << j.dump(2) << "\n";
    return 0;
  }
  ctx.out << "policy " << st.policy << ", state " << st.state_path << ": last poll " << ago(st.last_poll_wall_s, now)
          << ", last decision " << ago(st.last_decision_wall_s, now)
          << (st.stopped_wall_s > 0 ? ", stopped cleanly " + ago(st.stopped_wall_s, now) : std::string()) << ", "
          << st.jobs.size() << " jobs managed, " << st.finished_jobs << " finished, " << st.failed.size()
          << " failed\n";
  TextTable t({"slurm_id", "name", "status", "placement", "gpus", "requested_gpus", "attained_gpu_s", "preemptions",
               "retries"});
  for (const auto& job : st.jobs)
    t.add_row({std::to_string(job.slurm_id), job.name, job.status, job.placement.empty() ? "-" : job.placement,
               std::to_string(job.gpus), std::to_string(job.requested_gpus), fixed(job.attained_gpu_s, 1),
               std::to_string(job.preemptions), std::to_string(job.retries)});
  for (const auto& f : st.failed)
    t.add_row({std::to_string(f.slurm_id), f.name, "failed (" + f.state + ")", "-", "-", "-", "-", "-",
               std::to_string(f.retries)});
  ctx.out << t.render();
  return 0;
}

}  // namespace

void add_cluster_status_command(CLI::App& cluster, Context& ctx) {
  auto& o = ctx.make<StatusOptions>();
  auto* cmd = cluster.add_subcommand("status", "What a live controller (cluster serve) manages, from its state file");
  cmd->add_flag("--slurm", o.slurm, "The Slurm live mode (the only backend)");
  cmd->add_option("--state", o.state, "The controller's state file (serve --state)")->capture_default_str();
  cmd->add_option("--format", o.format, "table or json")->capture_default_str();
  cmd->callback([&] { ctx.run = [&] { return run_status(o, ctx); }; });
}

}  // namespace dmlkit::app
