// The PsControl that runs a policy under stragglers (see runner.h).
#include "ps/runner.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "comm/iteration_sim.h"
#include "comm/ps_control.h"
#include "core/error.h"
#include "core/subprocess.h"
#include "ps/policy.h"

namespace dmlkit::ps {
namespace {

double union_length(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0, lo = 0, hi = -1;
  for (const auto& [a, b] : v) {
    if (a > hi) {
      if (hi > lo) total += hi - lo;
      lo = a;
      hi = b;
    } else {
      hi = std::max(hi, b);
    }
  }
  if (hi > lo) total += hi - lo;
  return total;
}

class Controller final : public comm::PsControl {
 public:
  Controller(AssignmentPolicy& policy, const PsContext& ctx, const StragglerScenario& stragglers,
             const PsRunOptions& options, PsRun& run)
      : policy_(policy), ctx_(ctx), stragglers_(stragglers), options_(options), run_(run) {
    hosts_ = std::max(ctx.servers, policy.server_hosts(ctx));
    placement_ = policy.initial(ctx);
    if (placement_.tensor_pieces.size() != ctx.workload->tensors.size())
      throw std::logic_error("policy placement: one entry per tensor");
    (void)placement_.server_bytes(hosts_);  // checks the servers
    run_.server_hosts = hosts_;
    cpu_.assign(hosts_, 1.0);
    flows_.assign(hosts_, 0);
  }

  int server_hosts() const override { return hosts_; }
  double server_Bps() const override { return options_.server_Bps; }
  std::vector<double> cpu_slowdowns() const override { return stragglers_.cpu_factors(); }

  void pieces(const comm::Transfer& tr, std::vector<comm::PsPiece>& out) override {
    out.clear();
    for (const auto& c : tr.chunks) {
      const double size = ctx_.workload->tensors[c.tensor].bytes;
      for (const auto& p : placement_.tensor_pieces[c.tensor]) {
        const double b = size > 0 ? p.bytes * c.bytes / size : 0;
        auto it = std::find_if(out.begin(), out.end(), [&](const comm::PsPiece& o) { return o.server == p.server; });
        if (it != out.end())
          it->bytes += b;
        else
          out.push_back({p.server, b});
      }
    }
  }

  void on_iteration_start(int it, bool final, comm::PsRuntime& rt) override {
    starts_.push_back(rt.now_s());
    for (int j = 0; j < hosts_; ++j) {
      const double f = final ? 1.0 : stragglers_.cpu_factor(j, it);
      const int n = final ? 0 : stragglers_.background_flows(j, it);
      if (f != cpu_[j] && options_.server_Bps > 0) rt.set_cpu_slowdown(j, f);
      if (n != flows_[j]) rt.set_background_flows(j, n);
      cpu_[j] = f;
      flows_[j] = n;
    }
    if (final) {
      deliver(it, rt);
      return;
    }
    if (pending_ && it == pending_->switch_iteration) {
      const double t0 = rt.now_s();
      rt.wait_migrations();
      PsEvent e = pending_->event;
      e.wait_s = rt.now_s() - t0;
      e.migration_s = last_move_end_s_ - decided_at_s_;
      e.transferred_bytes = transferred_;
      placement_ = pending_->change.placement;
      int active = 0;
      for (double b : placement_.server_bytes(hosts_)) active += b > 0;
      e.active_servers = active;
      run_.events.push_back(e);
      policy_.on_switched(it);
      pending_.reset();
    }
    deliver(it, rt);
    run_.load_bytes.push_back(placement_.server_bytes(hosts_));
    run_.estimate_Bps.push_back(policy_.estimates());
  }

  void on_piece_done(const comm::PieceTiming& t) override {
    auto& per = pieces_[t.iteration];
    if (per.empty()) per.resize(hosts_);
    per[t.server].bytes += t.bytes;
    per[t.server].spans.push_back({t.start_s, t.end_s});
  }

  void on_migration_done(int, int, double bytes, double, double end_s) override {
    run_.migrated_bytes += bytes;
    transferred_ += bytes;
    last_move_end_s_ = std::max(last_move_end_s_, end_s);
  }

 private:
  struct ServerPieces {
    double bytes = 0;
    std::vector<std::pair<double, double>> spans;
  };
  struct Pending {
    Change change;
    int switch_iteration = 0;
    PsEvent event;
  };

  // Reports every iteration <= it - 2 not yet reported (all its pieces are done).
  void deliver(int it, comm::PsRuntime& rt) {
    for (; next_obs_ <= it - 2; ++next_obs_) {
      IterationObservation obs;
      obs.iteration = next_obs_;
      obs.duration_s = starts_[next_obs_ + 1] - starts_[next_obs_];
      obs.servers.resize(hosts_);
      std::vector<double> busy(hosts_, 0.0);
      auto found = pieces_.find(next_obs_);
      if (found != pieces_.end()) {
        for (int j = 0; j < hosts_; ++j) {
          obs.servers[j].bytes = found->second[j].bytes;
          obs.servers[j].busy_s = busy[j] = union_length(found->second[j].spans);
        }
        pieces_.erase(found);
      }
      run_.busy_s.push_back(busy);
      if (pending_) continue;
      if (auto change = policy_.observe(obs)) {
        double moved = 0;
        for (const auto& m : change->moves) moved += m.bytes;
        decided_at_s_ = last_move_end_s_ = rt.now_s();
        transferred_ = 0;
        for (const auto& m : change->moves) rt.migrate(m.from, m.to, m.bytes);
        Pending p;
        p.switch_iteration = it + std::max(1, change->switch_after);
        p.event.kind = to_string(change->kind);
        p.event.decided_iteration = it;
        p.event.switch_iteration = p.switch_iteration;
        p.event.moved_bytes = moved;
        p.event.predicted_gain = change->predicted_gain;
        p.change = std::move(*change);
        pending_ = std::move(p);
      }
    }
  }

  AssignmentPolicy& policy_;
  PsContext ctx_;
  const StragglerScenario& stragglers_;
  PsRunOptions options_;
  PsRun& run_;
  int hosts_ = 0;
  Placement placement_;
  std::vector<double> cpu_;
  std::vector<int> flows_;
  std::vector<double> starts_;
  std::map<int, std::vector<ServerPieces>> pieces_;
  int next_obs_ = 0;
  std::optional<Pending> pending_;
  double decided_at_s_ = 0, last_move_end_s_ = 0, transferred_ = 0;
};

void validate(const comm::TrainingWorkload& workload, const comm::NetworkConfig& net, const std::string& policy,
              const KnobValues& params, const StragglerScenario& stragglers, const PsRunOptions& o) {
  if (net.arch != comm::Arch::ps) throw Error("", 0, "arch", "ps runs need the ps architecture");
  net.validate();
  if (o.iterations < 3 || o.iterations > 1000) throw Error("", 0, "iterations", "must be between 3 and 1000");
  if (!(o.server_Bps >= 0) || !std::isfinite(o.server_Bps)) throw Error("", 0, "server_bandwidth", "must be >= 0");
  if (workload.layers.empty()) throw Error("", 0, "model", "the workload has no layers");
  for (const auto& e : stragglers.events) {
    if (e.server >= net.servers)
      throw Error("", 0, "stragglers", "straggler on PS " + std::to_string(e.server) + " but the run has " +
                                           std::to_string(net.servers) + " servers");
    if (e.kind == StragglerKind::cpu && o.server_Bps <= 0)
      throw Error("", 0, "stragglers", "a cpu straggler needs the server CPU simulated (--server-GBps > 0)");
  }
  (void)make_policy(policy, params);
}

nlohmann::json to_json(const PsRun& r) {
  nlohmann::json j;
  j["policy"] = r.policy;
  j["server_hosts"] = r.server_hosts;
  j["iteration_s"] = r.iteration_s;
  j["total_s"] = r.total_s;
  j["load_bytes"] = r.load_bytes;
  j["busy_s"] = r.busy_s;
  j["estimate_Bps"] = r.estimate_Bps;
  j["migrated_bytes"] = r.migrated_bytes;
  auto& ev = j["events"] = nlohmann::json::array();
  for (const auto& e : r.events)
    ev.push_back({e.kind, e.decided_iteration, e.switch_iteration, e.moved_bytes, e.transferred_bytes, e.migration_s,
                  e.wait_s, e.active_servers, e.predicted_gain});
  return j;
}

PsRun from_json(const nlohmann::json& j) {
  PsRun r;
  r.policy = j.at("policy").get<std::string>();
  r.server_hosts = j.at("server_hosts").get<int>();
  r.iteration_s = j.at("iteration_s").get<std::vector<double>>();
  r.total_s = j.at("total_s").get<double>();
  r.load_bytes = j.at("load_bytes").get<std::vector<std::vector<double>>>();
  r.busy_s = j.at("busy_s").get<std::vector<std::vector<double>>>();
  r.estimate_Bps = j.at("estimate_Bps").get<std::vector<std::vector<double>>>();
  r.migrated_bytes = j.at("migrated_bytes").get<double>();
  for (const auto& e : j.at("events"))
    r.events.push_back({e[0].get<std::string>(), e[1].get<int>(), e[2].get<int>(), e[3].get<double>(),
                        e[4].get<double>(), e[5].get<double>(), e[6].get<double>(), e[7].get<int>(),
                        e[8].get<double>()});
  return r;
}

}  // namespace

PsRun run_policy_in_process(const comm::TrainingWorkload& workload, const comm::NetworkConfig& net,
                            const std::string& policy_name, const KnobValues& params,
                            const StragglerScenario& stragglers, const PsRunOptions& options) {
  validate(workload, net, policy_name, params, stragglers, options);
  auto policy = make_policy(policy_name, params);
  PsContext ctx{&workload, net.servers, net.workers, net.bandwidth_Bps, options.seed};
  PsRun run;
  run.policy = policy_name;
  Controller controller(*policy, ctx, stragglers, options, run);
  comm::SimOptions sim;
  sim.iterations = options.iterations;
  sim.warmup = 0;
  sim.timeline = false;
  sim.ps_control = &controller;
  const auto r = comm::simulate_in_process(workload, net, "fifo", {}, sim);
  run.iteration_s = r.iteration_s;
  run.total_s = 0;
  for (double t : r.iteration_s) run.total_s += t;
  return run;
}

PsRun run_policy(const comm::TrainingWorkload& workload, const comm::NetworkConfig& net, const std::string& policy,
                 const KnobValues& params, const StragglerScenario& stragglers, const PsRunOptions& options) {
  validate(workload, net, policy, params, stragglers, options);
  const std::string data = run_in_child_rethrowing(
      [&] { return to_json(run_policy_in_process(workload, net, policy, params, stragglers, options)).dump(); });
  return from_json(nlohmann::json::parse(data));
}

}  // namespace dmlkit::ps
