// SimGrid implementation of the GNN iteration simulator (see simulate.h).
#include "gnn/simulate.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <queue>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "comm/simgrid_engine.h"
#include "core/error.h"
#include "core/subprocess.h"

namespace sg4 = simgrid::s4u;

namespace dmlkit::gnn {

const char* to_string(SpanKind k) {
  switch (k) {
    case SpanKind::sample:
      return "sample";
    case SpanKind::compute:
      return "compute";
    case SpanKind::sync:
      return "sync";
    case SpanKind::structure_flow:
      return "structure";
    case SpanKind::feature_flow:
      return "features";
    case SpanKind::block_flow:
      return "blocks";
    case SpanKind::sync_flow:
      return "gradients";
  }
  return "?";
}

double SimResult::mean_iteration_s(int warmup, int cooldown) const {
  const int n = static_cast<int>(iteration_end_s.size());
  if (n == 0) return 0;
  warmup = std::clamp(warmup, 0, n - 1);
  cooldown = std::clamp(cooldown, 0, n - 1 - warmup);  // at least one iteration stays in the window
  const int last = n - 1 - cooldown;
  const double start = warmup == 0 ? 0 : iteration_end_s[warmup - 1];
  return (iteration_end_s[last] - start) / (last - warmup + 1);
}

double SimResult::link_utilization(int link) const {
  const double span = makespan_s();
  if (link < 0 || link >= static_cast<int>(link_bytes.size()) || span <= 0) return 0;
  return link_bytes[link] / (link_capacity_Bps[link] * span);
}

int SimResult::busiest_link() const {
  int best = -1;
  for (int l = 0; l < static_cast<int>(link_bytes.size()); ++l)
    if (best < 0 || link_utilization(l) > link_utilization(best)) best = l;
  return best;
}

namespace {

double now() { return sg4::Engine::get_clock(); }

// What a flow's completion counts towards.
enum class Owner { sample, transfer, sync };

struct Flow {
  long seq;
  int src, dst;
  double total, remaining;
  int iteration, trainer, partition;
  SpanKind kind;
  Owner owner;
  double ready_s, start_s = -1;
  double downstream_s = 0;  // compute after it on its trainer (critical-path priority)
  bool active = false;
  double chunk = 0, cap = 0;
  std::vector<int> path;  // link ids (up of src, uplinks, down of dst)
};

struct SampleTask {
  int trainer, iteration;
  double ready_s;
  long seq;
  double critical_s;
};

struct Timer {
  double at;
  int kind;  // 0 sample cpu done, 1 compute done, 2 zero-time sync
  int trainer, iteration;
  bool operator>(const Timer& o) const {
    return std::tie(at, kind, trainer, iteration) > std::tie(o.at, o.kind, o.trainer, o.iteration);
  }
};

class Sim {
 public:
  Sim(const ClusterSpec& c, const Job& j, const Placement& p, const Scheduler& s, const SimConfig& cfg)
      : c_(c), job_(j), p_(p), sched_(s), cfg_(cfg) {}

  void build_platform() {
    auto* zone = sg4::create_full_zone("gnn");
    const int M = static_cast<int>(c_.machines.size());
    std::vector<sg4::Link*> up(M), down(M);
    for (int m = 0; m < M; ++m) {
      hosts_.push_back(zone->create_host("m" + std::to_string(m), 1e9)->seal());
      up[m] = zone->create_link("m" + std::to_string(m) + "_up", c_.machines[m].nic_Bps)->set_latency(c_.latency_s)->seal();
      down[m] = zone->create_link("m" + std::to_string(m) + "_down", c_.machines[m].nic_Bps)->set_latency(c_.latency_s)->seal();
      link_cap_.push_back(c_.machines[m].nic_Bps);  // id 2m: up
      link_cap_.push_back(c_.machines[m].nic_Bps);  // id 2m+1: down
      result_.link_names.push_back("m" + std::to_string(m) + "_up");
      result_.link_names.push_back("m" + std::to_string(m) + "_down");
      result_.nic_capacity_Bps += c_.machines[m].nic_Bps;
    }
    std::vector<sg4::Link*> rup, rdown;
    if (c_.racks > 1) {
      for (int r = 0; r < c_.racks; ++r) {
        double sum = 0;
        for (const auto& mc : c_.machines)
          if (mc.rack == r) sum += mc.nic_Bps;
        const double bw = c_.uplink_Bps > 0 ? c_.uplink_Bps : std::max(sum, 1.0);
        rup.push_back(zone->create_link("rack" + std::to_string(r) + "_up", bw)->set_latency(c_.latency_s)->seal());
        rdown.push_back(zone->create_link("rack" + std::to_string(r) + "_down", bw)->set_latency(c_.latency_s)->seal());
        link_cap_.push_back(bw);  // id 2M + 2r
        link_cap_.push_back(bw);  // id 2M + 2r + 1
        result_.link_names.push_back("rack" + std::to_string(r) + "_up");
        result_.link_names.push_back("rack" + std::to_string(r) + "_down");
      }
    }
    paths_.assign(M, std::vector<std::vector<int>>(M));
    for (int a = 0; a < M; ++a)
      for (int b = 0; b < M; ++b) {
        if (a == b) continue;
        std::vector<sg4::LinkInRoute> links{sg4::LinkInRoute(up[a])};
        std::vector<int>& ids = paths_[a][b];
        ids.push_back(2 * a);
        const int ra = c_.machines[a].rack, rb = c_.machines[b].rack;
        if (c_.racks > 1 && ra != rb) {
          links.emplace_back(rup[ra]);
          links.emplace_back(rdown[rb]);
          ids.push_back(2 * M + 2 * ra);
          ids.push_back(2 * M + 2 * rb + 1);
        }
        links.emplace_back(down[b]);
        ids.push_back(2 * b + 1);
        zone->add_route(hosts_[a]->get_netpoint(), hosts_[b]->get_netpoint(), nullptr, nullptr, links, false);
      }
    zone->seal();
    result_.link_capacity_Bps = link_cap_;
    result_.link_bytes.assign(link_cap_.size(), 0);
    const int kinds = static_cast<int>(SpanKind::sync_flow) + 1;
    result_.flow_count.assign(kinds, 0);
    result_.flow_wait_s.assign(kinds, 0);
    result_.flow_duration_s.assign(kinds, 0);
  }

  void run() {
    const int T = job_.trainers;
    N_ = std::min(cfg_.iterations, job_.samples->iterations);
    tm_.resize(T);
    sm_.resize(T);
    for (int t = 0; t < T; ++t) {
      tm_[t] = p_[job_.trainer_task(t)];
      sm_[t] = p_[job_.sampler_task(t)];
    }
    for (int s = 0; s < job_.ps_count(); ++s) psm_.push_back(p_[job_.ps_task(s)]);
    const int M = static_cast<int>(c_.machines.size());
    pool_.assign(M, 0);
    for (int m = 0; m < M; ++m) pool_[m] = c_.machines[m].cores;
    for (size_t k = 0; k < job_.tasks.size(); ++k)
      if (job_.tasks[k].kind != TaskKind::sampler) pool_[p_[k]] -= job_.tasks[k].cores;
    base_pool_ = pool_;
    queues_.assign(M, {});
    auto grid = [&](int v) { return std::vector<std::vector<int>>(T, std::vector<int>(N_, v)); };
    sample_state_ = grid(0);   // 0 waiting, 1 queued, 2 running, 3 done
    sample_left_ = grid(0);
    transfer_left_ = grid(-1);  // -1 not started
    compute_state_ = grid(0);   // 0 waiting, 1 running, 2 done
    sync_state_.assign(N_, 0);  // 0 waiting, 1 running (stage 0), 2 running (stage 1), 3 done
    sync_left_.assign(N_, 0);
    sync_start_.assign(N_, 0);
    compute_start_ = std::vector<std::vector<double>>(T, std::vector<double>(N_, 0));
    sample_start_ = compute_start_;
    computes_done_.assign(N_, 0);
    next_sample_.assign(T, 0);
    next_compute_.assign(T, 0);
    result_.iteration_end_s.assign(N_, 0);

    while (true) {
      do {
        dirty_ = false;
        advance();
        dispatch_flows();
      } while (dirty_);
      if (synced_ == N_) break;
      const double next_timer = timers_.empty() ? INFINITY : timers_.top().at;
      if (comms_.empty() && !std::isfinite(next_timer))
        throw std::runtime_error("gnn simulation deadlocked at iteration " + std::to_string(synced_));
      if (comms_.empty()) {
        sg4::this_actor::sleep_until(next_timer);
      } else {
        const double timeout = std::isfinite(next_timer) ? std::max(0.0, next_timer - now()) : -1;
        const ssize_t k = sg4::Comm::wait_any_for(comms_, timeout);
        if (k >= 0) {
          const int f = comm_flow_[k];
          comms_.erase(comms_.begin() + k);
          comm_flow_.erase(comm_flow_.begin() + k);
          on_chunk_done(f);
        }
      }
      while (!timers_.empty() && timers_.top().at <= now() + 1e-12) {
        const Timer tm = timers_.top();
        timers_.pop();
        on_timer(tm);
      }
    }
  }

  SimResult take() { return std::move(result_); }

 private:
  bool keep(int iteration) const {
    return cfg_.keep_all || (cfg_.gantt_iterations > 0 && iteration >= cfg_.gantt_from &&
                             iteration < cfg_.gantt_from + cfg_.gantt_iterations);
  }
  void span(SpanKind k, int machine, int source, int trainer, int iteration, int part, double bytes, double a, double b) {
    if (keep(iteration)) result_.spans.push_back({k, machine, source, trainer, iteration, part, bytes, a, b});
  }

  const BatchSample& batch(int t, int i) const { return job_.samples->at(t, i); }

  double critical_path_s(int t, int i) const {
    const auto& b = batch(t, i);
    double remote = 0;
    for (int q = 0; q < job_.partitions; ++q)
      if (c_.store_machine[q] != tm_[t]) remote += job_.feature_bytes(b.nodes_per_part[q]);
    const double sync = job_.gradient_bytes * 2 / c_.machines[tm_[t]].nic_Bps;
    return sample_s(t, i) + remote / c_.machines[tm_[t]].nic_Bps +
           job_.compute_s(b, c_.machines[tm_[t]].gpu_speed) + sync;
  }

  // Moves every task whose dependencies are met forward (sampling into queues, computes, syncs).
  void advance() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (int t = 0; t < job_.trainers; ++t) {
        // Sampling of the next iteration.
        const int i = next_sample_[t];
        if (i < N_ && sample_state_[t][i] == 0) {
          const bool prev = i == 0 || sample_state_[t][i - 1] == 3;
          const int gate = i - 1 - job_.cfg.prefetch;
          const bool buffer = gate < 0 || compute_state_[t][gate] == 2;
          if (prev && buffer) {
            sample_state_[t][i] = 1;
            queues_[sm_[t]].push_back({t, i, now(), seq_++, critical_path_s(t, i)});
            ++next_sample_[t];
            changed = true;
          }
        }
        // Compute.
        const int k = next_compute_[t];
        if (k < N_ && compute_state_[t][k] == 0 && transfer_left_[t][k] == 0 && (k == 0 || sync_state_[k - 1] == 3)) {
          compute_state_[t][k] = 1;
          compute_start_[t][k] = now();
          const double d = job_.compute_s(batch(t, k), c_.machines[tm_[t]].gpu_speed);
          timers_.push({now() + d, 1, t, k});
          ++next_compute_[t];
          changed = true;
        }
      }
      // Sampling tasks take free cores in the scheduler's order.
      for (size_t m = 0; m < queues_.size(); ++m) {
        auto& q = queues_[m];
        while (!q.empty() && pool_[m] >= need(static_cast<int>(m))) {
          auto best = std::min_element(q.begin(), q.end(), [&](const SampleTask& a, const SampleTask& b) {
            const auto ka = sched_.task_key({a.iteration, a.ready_s, a.seq, a.critical_s});
            const auto kb = sched_.task_key({b.iteration, b.ready_s, b.seq, b.critical_s});
            return ka != kb ? ka < kb : a.seq < b.seq;
          });
          const SampleTask task = *best;
          q.erase(best);
          pool_[m] -= need(static_cast<int>(m));
          start_sample(task.trainer, task.iteration);
          changed = true;
        }
      }
    }
  }

  // Cores one sampling task takes on machine m: sampler_threads, or the whole free pool if smaller.
  int need(int m) const { return std::clamp(job_.cfg.sampler_threads, 1, std::max(1, base_pool_[m])); }
  double sample_s(int t, int i) const {
    return static_cast<double>(batch(t, i).sampled_edges()) * job_.cfg.sample_s_per_edge / need(sm_[t]);
  }

  void start_sample(int t, int i) {
    sample_state_[t][i] = 2;
    sample_start_[t][i] = now();
    const auto& b = batch(t, i);
    int left = 1;  // the CPU part
    for (int q = 0; q < job_.partitions; ++q) {
      const double bytes = static_cast<double>(b.edges_per_part[q]) * job_.cfg.structure_bytes_per_edge;
      if (add_flow(c_.store_machine[q], sm_[t], bytes, i, t, q, SpanKind::structure_flow, Owner::sample)) ++left;
    }
    sample_left_[t][i] = left;
    timers_.push({now() + sample_s(t, i), 0, t, i});
  }

  // Adds a flow; returns false (and counts the bytes as local) when nothing crosses the network.
  bool add_flow(int src, int dst, double bytes, int iteration, int trainer, int part, SpanKind kind, Owner owner) {
    if (bytes <= 0) return false;
    if (src == dst) {
      result_.local_bytes += bytes;
      return false;
    }
    Flow f;
    f.seq = seq_++;
    f.src = src;
    f.dst = dst;
    f.total = f.remaining = bytes;
    f.iteration = iteration;
    f.trainer = trainer;
    f.partition = part;
    f.kind = kind;
    f.owner = owner;
    f.ready_s = now();
    f.downstream_s = trainer >= 0 ? job_.compute_s(batch(trainer, iteration), c_.machines[tm_[trainer]].gpu_speed) : 0;
    f.path = paths_[src][dst];
    flows_.push_back(std::move(f));
    waiting_.push_back(static_cast<int>(flows_.size()) - 1);
    return true;
  }

  void start_chunk(int id, double bytes, double cap) {
    Flow& f = flows_[id];
    if (f.start_s < 0) f.start_s = now();
    f.active = true;
    f.chunk = bytes;
    f.cap = cap;
    // The rate cap must be set before the hosts (sendto_init(from, to) marks the comm as starting).
    auto comm = sg4::Comm::sendto_init();
    if (cap > 0) comm->set_rate(cap);
    comm->set_source(hosts_[f.src])->set_destination(hosts_[f.dst]);
    comm->set_payload_size(static_cast<uint64_t>(std::max(1.0, std::ceil(bytes))));
    comm->start();
    comms_.push_back(comm);
    comm_flow_.push_back(id);
  }

  void dispatch_flows() {
    if (!sched_.prioritise_flows()) {
      for (int id : waiting_) start_chunk(id, flows_[id].remaining, 0);
      waiting_.clear();
      return;
    }
    // Priority water-filling over every unfinished flow, running or waiting: in flow_key order
    // each takes the residual capacity of its path. A running flow whose rate should change is
    // cancelled (the bytes it moved are kept) and restarted at the new rate.
    std::vector<int> all = waiting_;
    std::vector<double> moved(flows_.size(), 0);
    for (size_t k = 0; k < comms_.size(); ++k) {
      const int id = comm_flow_[k];
      all.push_back(id);
      moved[id] = std::clamp(flows_[id].chunk - comms_[k]->get_remaining(), 0.0, flows_[id].chunk);
    }
    if (all.empty()) return;
    auto left = [&](int id) { return flows_[id].remaining - moved[id]; };
    auto view = [&](int id) {
      const Flow& f = flows_[id];
      return FlowView{f.iteration, left(id), f.ready_s, f.seq, f.downstream_s};
    };
    std::vector<std::pair<double, double>> key(flows_.size());
    for (int id : all) key[id] = sched_.flow_key(view(id));
    std::sort(all.begin(), all.end(), [&](int a, int b) {
      return key[a] != key[b] ? key[a] < key[b] : flows_[a].seq < flows_[b].seq;
    });
    std::vector<double> residual = link_cap_;
    std::vector<double> cap(flows_.size(), 0);
    if (!sched_.share_within_class()) {
      for (int id : all) {
        double c = INFINITY;
        for (int l : flows_[id].path) c = std::min(c, residual[l]);
        cap[id] = std::max(0.0, c);
        for (int l : flows_[id].path) residual[l] -= cap[id];
      }
    } else {
      // Classes (equal flow_key().first) in order; within a class, max-min fair shares of what
      // the earlier classes left (progressive filling).
      size_t a = 0;
      while (a < all.size()) {
        const double cls = key[all[a]].first;
        size_t b = a;
        while (b < all.size() && key[all[b]].first == cls) ++b;
        std::vector<int> active(all.begin() + a, all.begin() + b);
        std::vector<int> users(link_cap_.size(), 0);
        while (!active.empty()) {
          std::fill(users.begin(), users.end(), 0);
          for (int id : active)
            for (int l : flows_[id].path) ++users[l];
          double inc = INFINITY;
          for (size_t l = 0; l < users.size(); ++l)
            if (users[l] > 0) inc = std::min(inc, std::max(0.0, residual[l]) / users[l]);
          for (int id : active) {
            cap[id] += inc;
            for (int l : flows_[id].path) residual[l] -= inc;
          }
          std::vector<int> still;
          for (int id : active) {
            bool saturated = false;
            for (int l : flows_[id].path) saturated = saturated || residual[l] <= 1e-9 * link_cap_[l];
            if (!saturated) still.push_back(id);
          }
          active.swap(still);
        }
        a = b;
      }
    }
    const double tol = sched_.rerate_tolerance();
    std::vector<sg4::CommPtr> keep_comms;
    std::vector<int> keep_ids;
    for (size_t k = 0; k < comms_.size(); ++k) {
      const int id = comm_flow_[k];
      Flow& f = flows_[id];
      if (std::abs(cap[id] - f.cap) <= tol * f.cap) {
        keep_comms.push_back(comms_[k]);
        keep_ids.push_back(id);
        cap[id] = -1;  // keeps running as it is
        continue;
      }
      comms_[k]->cancel();
      f.active = false;
      f.remaining -= moved[id];
      result_.network_bytes += moved[id];
    }
    comms_ = std::move(keep_comms);
    comm_flow_ = std::move(keep_ids);
    waiting_.clear();
    for (int id : all) {
      if (cap[id] < 0) continue;
      Flow& f = flows_[id];
      double full = INFINITY;
      for (int l : f.path) full = std::min(full, link_cap_[l]);
      if (f.remaining <= 0.5) {
        f.remaining = 0;
        finish_flow(id);
      } else if (cap[id] >= 1e-6 * full) {
        start_chunk(id, f.remaining, cap[id]);
      } else {
        waiting_.push_back(id);
      }
    }
  }

  void on_chunk_done(int id) {
    Flow& f = flows_[id];
    f.active = false;
    f.remaining -= f.chunk;
    result_.network_bytes += f.chunk;
    if (f.remaining > 0.5) {
      waiting_.push_back(id);
      return;
    }
    finish_flow(id);
  }

  void finish_flow(int id) {
    dirty_ = true;
    Flow& f = flows_[id];
    span(f.kind, f.dst, f.src, f.trainer, f.iteration, f.partition, f.total, f.start_s, now());
    for (int l : f.path) result_.link_bytes[l] += f.total;
    const int k = static_cast<int>(f.kind);
    result_.flow_count[k] += 1;
    result_.flow_wait_s[k] += std::max(0.0, (f.start_s < 0 ? now() : f.start_s) - f.ready_s);
    result_.flow_duration_s[k] += now() - f.ready_s;
    switch (f.owner) {
      case Owner::sample:
        finish_sample_part(f.trainer, f.iteration);
        break;
      case Owner::transfer:
        if (--transfer_left_[f.trainer][f.iteration] == 0) transfer_done(f.trainer, f.iteration);
        break;
      case Owner::sync:
        if (--sync_left_[f.iteration] == 0) sync_stage_done(f.iteration);
        break;
    }
  }

  void finish_sample_part(int t, int i) {
    if (--sample_left_[t][i] > 0) return;
    sample_state_[t][i] = 3;
    span(SpanKind::sample, sm_[t], -1, t, i, -1, 0, sample_start_[t][i], now());
    // Transfers of this iteration's inputs.
    const auto& b = batch(t, i);
    int left = 0;
    for (int q = 0; q < job_.partitions; ++q)
      if (add_flow(c_.store_machine[q], tm_[t], job_.feature_bytes(b.nodes_per_part[q]), i, t, q,
                   SpanKind::feature_flow, Owner::transfer))
        ++left;
    if (add_flow(sm_[t], tm_[t], static_cast<double>(b.sampled_edges()) * job_.cfg.structure_bytes_per_edge, i, t, -1,
                 SpanKind::block_flow, Owner::transfer))
      ++left;
    transfer_left_[t][i] = left;
    if (left == 0) transfer_done(t, i);
  }

  void transfer_done(int t, int i) { transfer_left_[t][i] = 0; }

  void on_timer(const Timer& tm) {
    if (tm.kind == 0) {  // sampling CPU done: its cores return to the pool
      pool_[sm_[tm.trainer]] += need(sm_[tm.trainer]);
      finish_sample_part(tm.trainer, tm.iteration);
    } else if (tm.kind == 1) {
      const int t = tm.trainer, i = tm.iteration;
      compute_state_[t][i] = 2;
      result_.gpu_busy_s += now() - compute_start_[t][i];
      span(SpanKind::compute, tm_[t], -1, t, i, -1, 0, compute_start_[t][i], now());
      if (++computes_done_[i] == job_.trainers) start_sync(i);
    } else {
      sync_stage_done(tm.iteration);
    }
  }

  void start_sync(int i) {
    sync_state_[i] = 1;
    sync_start_[i] = now();
    const int T = job_.trainers;
    int left = 0;
    if (job_.cfg.sync == SyncMode::allreduce) {
      if (T > 1) {
        const double bytes = 2.0 * (T - 1) / T * job_.gradient_bytes;
        for (int t = 0; t < T; ++t)
          if (add_flow(tm_[t], tm_[(t + 1) % T], bytes, i, -1, -1, SpanKind::sync_flow, Owner::sync)) ++left;
      }
    } else {
      const double bytes = job_.gradient_bytes / psm_.size();
      for (int t = 0; t < T; ++t)
        for (int s : psm_)
          if (add_flow(tm_[t], s, bytes, i, -1, -1, SpanKind::sync_flow, Owner::sync)) ++left;
    }
    sync_left_[i] = left;
    if (left == 0) timers_.push({now(), 2, -1, i});
  }

  void sync_stage_done(int i) {
    if (job_.cfg.sync == SyncMode::ps && sync_state_[i] == 1) {
      sync_state_[i] = 2;
      int left = 0;
      const double bytes = job_.gradient_bytes / psm_.size();
      for (int t = 0; t < job_.trainers; ++t)
        for (int s : psm_)
          if (add_flow(s, tm_[t], bytes, i, -1, -1, SpanKind::sync_flow, Owner::sync)) ++left;
      sync_left_[i] = left;
      if (left == 0) timers_.push({now(), 2, -1, i});
      return;
    }
    sync_state_[i] = 3;
    result_.iteration_end_s[i] = now();
    span(SpanKind::sync, tm_[0], -1, -1, i, -1, 0, sync_start_[i], now());
    ++synced_;
  }

  const ClusterSpec& c_;
  const Job& job_;
  const Placement& p_;
  const Scheduler& sched_;
  SimConfig cfg_;
  int N_ = 0;
  std::vector<sg4::Host*> hosts_;
  std::vector<double> link_cap_;
  std::vector<std::vector<std::vector<int>>> paths_;
  std::vector<int> tm_, sm_, psm_, pool_;
  std::vector<std::vector<SampleTask>> queues_;
  std::vector<std::vector<int>> sample_state_, sample_left_, transfer_left_, compute_state_;
  std::vector<std::vector<double>> compute_start_, sample_start_;
  std::vector<int> sync_state_, sync_left_, computes_done_, next_sample_, next_compute_, base_pool_;
  std::vector<double> sync_start_;
  std::vector<Flow> flows_;
  std::vector<int> waiting_;
  std::vector<sg4::CommPtr> comms_;
  std::vector<int> comm_flow_;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> timers_;
  long seq_ = 0;
  int synced_ = 0;
  bool dirty_ = false;  // a flow finished while planning: plan again before waiting
  SimResult result_;
};

nlohmann::json to_json(const SimResult& r) {
  nlohmann::json j;
  j["end"] = r.iteration_end_s;
  j["gpu"] = r.gpu_busy_s;
  j["net"] = r.network_bytes;
  j["local"] = r.local_bytes;
  j["cap"] = r.nic_capacity_Bps;
  j["links"] = r.link_names;
  j["link_cap"] = r.link_capacity_Bps;
  j["link_bytes"] = r.link_bytes;
  j["flow_count"] = r.flow_count;
  j["flow_wait"] = r.flow_wait_s;
  j["flow_duration"] = r.flow_duration_s;
  auto& s = j["spans"] = nlohmann::json::array();
  for (const auto& x : r.spans)
    s.push_back({static_cast<int>(x.kind), x.machine, x.source, x.trainer, x.iteration, x.partition, x.bytes, x.start_s,
                 x.end_s});
  return j;
}

SimResult from_json(const nlohmann::json& j) {
  SimResult r;
  r.iteration_end_s = j.at("end").get<std::vector<double>>();
  r.gpu_busy_s = j.at("gpu").get<double>();
  r.network_bytes = j.at("net").get<double>();
  r.local_bytes = j.at("local").get<double>();
  r.nic_capacity_Bps = j.at("cap").get<double>();
  r.link_names = j.at("links").get<std::vector<std::string>>();
  r.link_capacity_Bps = j.at("link_cap").get<std::vector<double>>();
  r.link_bytes = j.at("link_bytes").get<std::vector<double>>();
  r.flow_count = j.at("flow_count").get<std::vector<double>>();
  r.flow_wait_s = j.at("flow_wait").get<std::vector<double>>();
  r.flow_duration_s = j.at("flow_duration").get<std::vector<double>>();
  for (const auto& x : j.at("spans"))
    r.spans.push_back({static_cast<SpanKind>(x[0].get<int>()), x[1].get<int>(), x[2].get<int>(), x[3].get<int>(),
                       x[4].get<int>(), x[5].get<int>(), x[6].get<double>(), x[7].get<double>(), x[8].get<double>()});
  return r;
}

void validate(const ClusterSpec& c, const Job& job, const Placement& p, const SimConfig& cfg) {
  c.validate();
  if (!job.samples) throw std::logic_error("gnn simulate: the job has no samples");
  if (cfg.iterations < 1) throw Error("", 0, "sim-iterations", "must be >= 1");
  std::string why;
  if (!feasible(c, job, p, &why)) throw Error("", 0, "placement", "infeasible placement: " + why);
  if (static_cast<int>(c.store_machine.size()) != job.partitions)
    throw Error("", 0, "store-machines", "one store machine per partition needed");
}

}  // namespace

SimResult simulate_in_process(const ClusterSpec& cluster, const Job& job, const Placement& placement,
                              const Scheduler& scheduler, const SimConfig& cfg) {
  validate(cluster, job, placement, cfg);
  const auto engine = comm::make_simgrid_engine("dmlkit-gnn");
  Sim sim(cluster, job, placement, scheduler, cfg);
  sim.build_platform();
  std::string failure;
  sg4::Actor::create("controller", sg4::Host::by_name("m0"), [&]() {
    try {
      sim.run();
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  engine->run();
  if (!failure.empty()) throw std::runtime_error(failure);
  return sim.take();
}

SimResult simulate(const ClusterSpec& cluster, const Job& job, const Placement& placement, const Scheduler& scheduler,
                   const SimConfig& cfg) {
  validate(cluster, job, placement, cfg);
  std::cout.flush();
  std::cerr.flush();
  const std::string data = run_in_child_rethrowing(
      [&] { return to_json(simulate_in_process(cluster, job, placement, scheduler, cfg)).dump(); });
  return from_json(nlohmann::json::parse(data));
}

}  // namespace dmlkit::gnn
