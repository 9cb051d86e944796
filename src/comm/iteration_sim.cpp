// SimGrid S4U implementation of the iteration simulator (see iteration_sim.h).
#include "comm/iteration_sim.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "comm/ps_control.h"
#include "comm/simgrid_engine.h"
#include "core/error.h"
#include "core/subprocess.h"

namespace sg4 = simgrid::s4u;

namespace dmlkit::comm {
namespace {

struct RawTransferSpan {
  int row;
  double start_s, end_s;
  int tensor;
  double bytes;
};

struct ComputeSpan {
  double start_s, end_s;
  int layer;
  bool forward;
};

struct State {
  const TrainingWorkload& w;
  const NetworkConfig& net;
  CommScheduler& sched;
  SimOptions opt;
  std::vector<sg4::Host*> workers, servers;
  sg4::MutexPtr mtx;
  sg4::ConditionVariablePtr param_cv, dispatch_cv;
  std::vector<char> synced;
  std::vector<double> remaining;
  bool events = false, finished = false;
  int bwd_iter = 0;
  double in_flight = 0, max_in_flight = 0;
  std::vector<double> fwd_start;
  std::vector<ComputeSpan> compute_spans;  // the recorded iteration only
  std::vector<RawTransferSpan> transfer_spans;
  std::vector<TransferRecord> log;
  // With a PsControl (comm/ps_control.h):
  PsControl* ps = nullptr;
  sg4::Host* background = nullptr;                  // source/sink of background flows
  std::vector<std::vector<sg4::CommPtr>> bg_flows;  // per server: its running background flows
  std::vector<double> cpu_factors;                  // pstate i runs 1/cpu_factors[i] as fast
  int migrations_pending = 0;
  sg4::ConditionVariablePtr migration_cv;
};

double now() { return sg4::Engine::get_clock(); }

// PS: which servers hold the transfer's bytes (MXNet kvstore rule).
void ps_parts(const State& st, const Transfer& tr, std::vector<std::pair<int, double>>& parts) {
  parts.clear();
  const int m = static_cast<int>(st.servers.size());
  if (tr.bytes >= st.net.big_array_bytes) {
    for (int s = 0; s < m; ++s) parts.push_back({s, tr.bytes / m});
  } else {
    const unsigned long long key = static_cast<unsigned long long>(tr.key + tr.part);
    parts.push_back({static_cast<int>((key * 9973ULL) % static_cast<unsigned long long>(m)), tr.bytes});
  }
}

uint64_t wire_bytes(double b) { return static_cast<uint64_t>(std::max(1.0, std::ceil(b))); }

// A PS transfer under a PsControl: per piece, W pushes; each received push is summed on the
// server's CPU; when all are summed, W pulls. Pieces proceed independently (see ps_control.h).
void run_ps_pieces(State& st, const Transfer& tr, int iteration, std::vector<int>& rows) {
  std::vector<PsPiece> pieces;
  st.ps->pieces(tr, pieces);
  const int w = static_cast<int>(st.workers.size());
  const bool cpu = st.ps->server_Bps() > 0;
  struct Run {
    int left = 0;
    PieceTiming t;
  };
  std::vector<Run> runs(pieces.size());
  std::vector<sg4::ActivityPtr> acts;
  std::vector<std::pair<int, int>> tags;  // (piece, phase: 0 push, 1 sum, 2 pull)
  const double start = now();
  for (size_t i = 0; i < pieces.size(); ++i) {
    const auto& p = pieces[i];
    if (p.server < 0 || p.server >= static_cast<int>(st.servers.size()))
      throw std::logic_error("PsControl::pieces: server " + std::to_string(p.server) + " out of range");
    rows.push_back(1 + p.server);
    runs[i].left = w;
    runs[i].t = PieceTiming{iteration, p.server, p.bytes, start, start, start};
    for (auto* wk : st.workers) {
      acts.push_back(sg4::Comm::sendto_async(wk, st.servers[p.server], wire_bytes(p.bytes)));
      tags.push_back({static_cast<int>(i), 0});
    }
  }
  auto start_pulls = [&](int i) {
    runs[i].left = w;
    runs[i].t.aggregated_s = now();
    for (auto* wk : st.workers) {
      acts.push_back(sg4::Comm::sendto_async(st.servers[pieces[i].server], wk, wire_bytes(pieces[i].bytes)));
      tags.push_back({i, 2});
    }
  };
  while (!acts.empty()) {
    const ssize_t k = sg4::Activity::wait_any(acts);
    const auto [i, phase] = tags[k];
    acts.erase(acts.begin() + k);
    tags.erase(tags.begin() + k);
    if (phase == 0 && cpu) {
      // Host::exec_async would run on the calling actor's host in SimGrid 3.32; set the host.
      sg4::ExecPtr sum = sg4::this_actor::exec_init(std::max(1.0, pieces[i].bytes));
      sum->set_host(st.servers[pieces[i].server]);
      sum->start();
      acts.push_back(sum);
      tags.push_back({i, 1});
    } else if (phase <= 1) {
      if (--runs[i].left == 0) start_pulls(i);
    } else if (--runs[i].left == 0) {
      runs[i].t.end_s = now();
      st.ps->on_piece_done(runs[i].t);
    }
  }
}

void run_transfer(State& st, const Transfer& tr, size_t log_index) {
  const double start = now();
  if (st.net.op_overhead_s > 0) sg4::this_actor::sleep_for(st.net.op_overhead_s);
  std::vector<sg4::CommPtr> comms;
  std::vector<int> rows;
  if (st.net.arch == Arch::allreduce) {
    const int n = static_cast<int>(st.workers.size());
    rows.push_back(1);
    if (n > 1 && tr.bytes > 0 && !st.net.ring_stepwise) {
      const double hop_latency_s = 2 * st.net.latency_s;  // one step: src NIC up + dst NIC down
      if (hop_latency_s > 0) sg4::this_actor::sleep_for((2.0 * (n - 1) - 1) * hop_latency_s);
      const uint64_t bytes = wire_bytes(2.0 * (n - 1) / n * tr.bytes);
      for (int i = 0; i < n; ++i)
        comms.push_back(sg4::Comm::sendto_async(st.workers[i], st.workers[(i + 1) % n], bytes));
      sg4::Comm::wait_all(comms);
    } else if (n > 1 && tr.bytes > 0) {
      const uint64_t step = wire_bytes(tr.bytes / n);
      for (int s = 0; s < 2 * (n - 1); ++s) {
        comms.clear();
        for (int i = 0; i < n; ++i)
          comms.push_back(sg4::Comm::sendto_async(st.workers[i], st.workers[(i + 1) % n], step));
        sg4::Comm::wait_all(comms);
      }
    }
  } else if (st.ps) {
    run_ps_pieces(st, tr, st.log[log_index].iteration, rows);
  } else {
    std::vector<std::pair<int, double>> parts;
    ps_parts(st, tr, parts);
    for (auto& p : parts) rows.push_back(1 + p.first);
    for (auto* w : st.workers)
      for (auto& p : parts) comms.push_back(sg4::Comm::sendto_async(w, st.servers[p.first], wire_bytes(p.second)));
    sg4::Comm::wait_all(comms);
    comms.clear();
    for (auto* w : st.workers)
      for (auto& p : parts) comms.push_back(sg4::Comm::sendto_async(st.servers[p.first], w, wire_bytes(p.second)));
    sg4::Comm::wait_all(comms);
  }
  const double end = now();
  st.log[log_index].end_s = end;
  for (int r : rows) st.transfer_spans.push_back({r, start, end, tr.chunks.front().tensor, tr.bytes});
  bool any_synced = false;
  for (const auto& c : tr.chunks) {
    st.remaining[c.tensor] -= c.bytes;
    if (st.remaining[c.tensor] <= 1e-6 * std::max(1.0, st.w.tensors[c.tensor].bytes)) {
      st.synced[c.tensor] = 1;
      any_synced = true;
    }
  }
  if (any_synced) st.param_cv->notify_all();
  st.in_flight -= tr.bytes;
  st.sched.on_done(tr, end);
  st.events = true;
  st.dispatch_cv->notify_all();
}

void launch(State& st, Transfer tr) {
  st.in_flight += tr.bytes;
  st.max_in_flight = std::max(st.max_in_flight, st.in_flight);
  st.log.push_back(TransferRecord{tr.id, st.bwd_iter, tr.priority, tr.bytes,
                                  tr.chunks.empty() ? -1 : tr.chunks.front().tensor, now(), 0, st.in_flight});
  const size_t idx = st.log.size() - 1;
  sg4::Actor::create("transfer", st.workers[0], [&st, tr = std::move(tr), idx]() { run_transfer(st, tr, idx); });
}

void dispatcher(State& st) {
  std::vector<Transfer> out;
  while (true) {
    out.clear();
    st.sched.poll(now(), out);
    for (auto& tr : out) launch(st, std::move(tr));
    if (st.finished) return;
    std::unique_lock<sg4::Mutex> lock(*st.mtx);
    while (!st.events && !st.finished) {
      const double wake = st.sched.next_wakeup_s();
      if (std::isfinite(wake)) {
        const double dt = wake - now();
        if (dt <= 1e-12) break;
        if (st.dispatch_cv->wait_for(lock, dt) == std::cv_status::timeout) break;
      } else {
        st.dispatch_cv->wait(lock);
      }
    }
    st.events = false;
  }
}

// The PsRuntime the controller drives stragglers and migrations through (ps_control.h).
class Runtime final : public PsRuntime {
 public:
  explicit Runtime(State& st) : st_(st) {}
  double now_s() const override { return now(); }
  void set_cpu_slowdown(int server, double factor) override {
    check(server);
    for (size_t i = 0; i < st_.cpu_factors.size(); ++i)
      if (st_.cpu_factors[i] == factor) {
        st_.servers[server]->set_pstate(i);
        return;
      }
    throw std::logic_error("set_cpu_slowdown: factor not declared by cpu_slowdowns()");
  }
  void set_background_flows(int server, int flows) override {
    check(server);
    auto& running = st_.bg_flows[server];
    // A background flow never ends by itself (1 PB); it is cancelled when no longer wanted.
    const uint64_t endless = 1000000000000000ULL;
    while (static_cast<int>(running.size()) < 2 * flows) {
      running.push_back(sg4::Comm::sendto_async(st_.background, st_.servers[server], endless));
      running.push_back(sg4::Comm::sendto_async(st_.servers[server], st_.background, endless));
    }
    while (static_cast<int>(running.size()) > 2 * flows) {
      running.back()->cancel();
      running.pop_back();
    }
  }
  void migrate(int from, int to, double bytes) override {
    check(from);
    check(to);
    ++st_.migrations_pending;
    State& st = st_;
    sg4::Actor::create("migrate", st.servers[from], [&st, from, to, bytes]() {
      const double start = now();
      sg4::Comm::sendto(st.servers[from], st.servers[to], wire_bytes(bytes));
      st.ps->on_migration_done(from, to, bytes, start, now());
      --st.migrations_pending;
      st.migration_cv->notify_all();
    });
  }
  void wait_migrations() override {
    std::unique_lock<sg4::Mutex> lock(*st_.mtx);
    while (st_.migrations_pending > 0) st_.migration_cv->wait(lock);
  }

 private:
  void check(int server) const {
    if (server < 0 || server >= static_cast<int>(st_.servers.size()))
      throw std::logic_error("PsRuntime: server " + std::to_string(server) + " out of range");
  }
  State& st_;
};

void compute(State& st) {
  const auto& layers = st.w.layers;
  const int iters = st.opt.iterations;
  const int record = iters - 1;
  Runtime runtime(st);
  for (int it = 0; it <= iters; ++it) {
    if (st.ps) st.ps->on_iteration_start(it, it == iters, runtime);
    st.fwd_start.push_back(now());
    for (size_t l = 0; l < layers.size(); ++l) {
      for (int t = layers[l].tensor; it > 0 && t >= 0 && t < layers[l].tensor + layers[l].tensor_count; ++t) {
        if (st.synced[t]) continue;
        std::unique_lock<sg4::Mutex> lock(*st.mtx);
        while (!st.synced[t]) st.param_cv->wait(lock);
      }
      if (layers[l].fwd_s > 0) {
        const double s = now();
        sg4::this_actor::sleep_for(layers[l].fwd_s);
        if (it == record) st.compute_spans.push_back({s, now(), static_cast<int>(l), true});
      }
    }
    if (it == iters) break;
    st.bwd_iter = it;
    for (int l = static_cast<int>(layers.size()) - 1; l >= 0; --l) {
      if (layers[l].bwd_s > 0) {
        const double s = now();
        sg4::this_actor::sleep_for(layers[l].bwd_s);
        if (it == record) st.compute_spans.push_back({s, now(), l, false});
      }
      // A layer's gradients become ready last parameter first (bias before weight), as the
      // oracle and DDP's reverse-order buckets assume.
      for (int t = layers[l].tensor + layers[l].tensor_count - 1; layers[l].tensor >= 0 && t >= layers[l].tensor; --t) {
        st.synced[t] = 0;
        st.remaining[t] = st.w.tensors[t].bytes;
        st.sched.on_ready(t, now());
        st.events = true;
        st.dispatch_cv->notify_all();
      }
    }
  }
  st.finished = true;
  st.dispatch_cv->notify_all();
}

void build_platform(State& st) {
  const auto& net = st.net;
  auto* zone = sg4::create_full_zone("cluster");
  struct Nic {
    sg4::Link* up;
    sg4::Link* down;
  };
  // Server CPUs (with a PsControl that simulates them): one pstate per slowdown factor.
  std::vector<double> server_speeds{1e12};
  if (st.ps && st.ps->server_Bps() > 0) {
    server_speeds.clear();
    for (double f : st.cpu_factors) server_speeds.push_back(st.ps->server_Bps() / f);
  }
  auto make_host = [&](const std::string& name, std::vector<sg4::Host*>& into, std::vector<Nic>& nics) {
    const bool server = &into == &st.servers;
    auto* h = server && server_speeds.size() > 1 ? zone->create_host(name, server_speeds)
                                                 : zone->create_host(name, server ? server_speeds[0] : 1e12);
    h->seal();
    into.push_back(h);
    const double bw =
        server ? net.bandwidth_Bps : net.bandwidth_Bps * net.link_scale(static_cast<int>(into.size()) - 1);
    auto* up = zone->create_link(name + "_up", bw)->set_latency(net.latency_s)->seal();
    auto* down = zone->create_link(name + "_down", bw)->set_latency(net.latency_s)->seal();
    nics.push_back({up, down});
  };
  std::vector<Nic> worker_nics, server_nics;
  for (int i = 0; i < net.workers; ++i) make_host("worker" + std::to_string(i), st.workers, worker_nics);
  const int server_hosts = net.arch != Arch::ps ? 0
                           : st.ps              ? std::max(net.servers, st.ps->server_hosts())
                                                : net.servers;
  for (int j = 0; j < server_hosts; ++j) make_host("server" + std::to_string(j), st.servers, server_nics);
  sg4::Link* backplane = nullptr;
  if (net.switch_bandwidth_Bps > 0) backplane = zone->create_link("switch", net.switch_bandwidth_Bps)->seal();
  // Racks: host i of n goes to rack i * R / n (workers and servers separately); each rack has an
  // uplink (up and down) to the core switch.
  std::map<const sg4::Host*, int> rack_of;
  for (int i = 0; i < net.workers; ++i) rack_of[st.workers[i]] = i * net.racks / net.workers;
  for (int j = 0; j < static_cast<int>(st.servers.size()); ++j)
    rack_of[st.servers[j]] = std::min(net.racks - 1, j * net.racks / net.servers);
  std::vector<Nic> uplinks;
  if (net.racks > 1) {
    std::vector<int> hosts_in(net.racks, 0);
    for (auto& [h, r] : rack_of) ++hosts_in[r];
    for (int r = 0; r < net.racks; ++r) {
      const double bw =
          net.uplink_bandwidth_Bps > 0 ? net.uplink_bandwidth_Bps : net.bandwidth_Bps * std::max(1, hosts_in[r]);
      auto* up = zone->create_link("rack" + std::to_string(r) + "_up", bw)->seal();
      auto* down = zone->create_link("rack" + std::to_string(r) + "_down", bw)->seal();
      uplinks.push_back({up, down});
    }
  }
  auto route = [&](sg4::Host* a, const Nic& na, sg4::Host* b, const Nic& nb) {
    std::vector<sg4::LinkInRoute> links{sg4::LinkInRoute(na.up)};
    const int ra = rack_of[a], rb = rack_of[b];
    if (net.racks > 1 && ra != rb) links.emplace_back(uplinks[ra].up);
    if (backplane) links.emplace_back(backplane);
    if (net.racks > 1 && ra != rb) links.emplace_back(uplinks[rb].down);
    links.emplace_back(nb.down);
    zone->add_route(a->get_netpoint(), b->get_netpoint(), nullptr, nullptr, links, false);
  };
  if (net.arch == Arch::allreduce) {
    const int n = net.workers;
    if (n > 1)
      for (int i = 0; i < n; ++i)
        route(st.workers[i], worker_nics[i], st.workers[(i + 1) % n], worker_nics[(i + 1) % n]);
  } else {
    for (int i = 0; i < net.workers; ++i)
      for (int j = 0; j < server_hosts; ++j) {
        route(st.workers[i], worker_nics[i], st.servers[j], server_nics[j]);
        route(st.servers[j], server_nics[j], st.workers[i], worker_nics[i]);
      }
    if (st.ps) {
      // Migrations between servers, and background flows from/to a host whose own NIC never limits
      // them (they contend only for the server's NIC).
      for (int a = 0; a < server_hosts; ++a)
        for (int b = 0; b < server_hosts; ++b)
          if (a != b) route(st.servers[a], server_nics[a], st.servers[b], server_nics[b]);
      std::vector<sg4::Host*> bg;
      std::vector<Nic> bg_nic;
      make_host("background", bg, bg_nic);
      st.background = bg[0];
      rack_of[st.background] = 0;
      for (int j = 0; j < server_hosts; ++j) {
        zone->add_route(st.background->get_netpoint(), st.servers[j]->get_netpoint(), nullptr, nullptr,
                        {sg4::LinkInRoute(server_nics[j].down)}, false);
        zone->add_route(st.servers[j]->get_netpoint(), st.background->get_netpoint(), nullptr, nullptr,
                        {sg4::LinkInRoute(server_nics[j].up)}, false);
      }
      st.bg_flows.assign(server_hosts, {});
    }
  }
  zone->seal();
}

// Total length of the union of intervals (sorted and merged in place).
std::vector<std::pair<double, double>> merge(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> out;
  for (auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}
double length(const std::vector<std::pair<double, double>>& v) {
  double s = 0;
  for (auto& iv : v) s += iv.second - iv.first;
  return s;
}
double intersection(const std::vector<std::pair<double, double>>& a, const std::vector<std::pair<double, double>>& b) {
  double s = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const double lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) s += hi - lo;
    if (a[i].second < b[j].second)
      ++i;
    else
      ++j;
  }
  return s;
}

std::string fmt_mb(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f MB", bytes / 1e6);
  return buf;
}

IterationResult collect(const State& st, const std::string& scheduler) {
  IterationResult r;
  r.scheduler = scheduler;
  for (size_t k = 0; k + 1 < st.fwd_start.size(); ++k) r.iteration_s.push_back(st.fwd_start[k + 1] - st.fwd_start[k]);
  double sum = 0;
  int count = 0;
  for (size_t k = st.opt.warmup; k < r.iteration_s.size(); ++k) sum += r.iteration_s[k], ++count;
  r.iteration_mean_s = count ? sum / count : 0;
  r.compute_s = st.w.compute_s();
  r.max_in_flight_bytes = st.max_in_flight;
  r.transfers = static_cast<long>(st.log.size());
  r.log = st.log;
  r.rows.push_back("GPU compute");
  if (st.net.arch == Arch::allreduce)
    r.rows.push_back("ring all-reduce");
  else
    for (size_t j = 0; j < st.servers.size(); ++j) r.rows.push_back("server" + std::to_string(j) + " NIC");
  const size_t k = st.opt.iterations - 1;
  const double t0 = st.fwd_start[k], t1 = st.fwd_start[k + 1];
  std::vector<std::pair<double, double>> comp, comm;
  for (const auto& c : st.compute_spans) {
    comp.push_back({c.start_s, c.end_s});
    if (st.opt.timeline)
      r.spans.push_back({0, c.start_s - t0, c.end_s - t0, (c.forward ? "F " : "B ") + st.w.layers[c.layer].name});
  }
  for (const auto& s : st.transfer_spans) {
    const double a = std::max(s.start_s, t0), b = std::min(s.end_s, t1);
    if (b <= a) continue;
    if (s.row == 1 || st.net.arch == Arch::ps) comm.push_back({a, b});
    if (st.opt.timeline)
      r.spans.push_back({s.row, a - t0, b - t0, st.w.tensors[s.tensor].name + " " + fmt_mb(s.bytes)});
  }
  auto mc = merge(comp), mm = merge(comm);
  r.comm_busy_s = length(mm);
  r.overlap = r.comm_busy_s > 0 ? intersection(mc, mm) / r.comm_busy_s : 1.0;
  return r;
}

}  // namespace

void SimOptions::validate() const {
  if (iterations < 1 || iterations > 1000) throw Error("", 0, "iterations", "must be between 1 and 1000");
  if (warmup < 0 || warmup >= iterations) throw Error("", 0, "warmup", "must be >= 0 and < iterations");
}

IterationResult simulate_in_process(const TrainingWorkload& workload, const NetworkConfig& net,
                                    const std::string& scheduler_name, const KnobValues& scheduler_params,
                                    const SimOptions& sim) {
  net.validate();
  sim.validate();
  auto scheduler = make_scheduler(scheduler_name, scheduler_params, workload, net);
  scheduler->setup(workload, net);
  const auto engine = comm::make_simgrid_engine("dmlkit-comm");
  State st{workload, net, *scheduler, sim, {}, {}, nullptr, nullptr, nullptr, {}, {}, false, false,
           0,        0,   0,          {},  {}, {}, {},      nullptr, nullptr, {}, {}, 0,     nullptr};
  if (sim.ps_control && net.arch == Arch::ps) {
    st.ps = sim.ps_control;
    st.cpu_factors = {1.0};
    for (double f : st.ps->cpu_slowdowns())
      if (f > 0 && std::find(st.cpu_factors.begin(), st.cpu_factors.end(), f) == st.cpu_factors.end())
        st.cpu_factors.push_back(f);
  }
  st.synced.assign(workload.tensors.size(), 1);
  st.remaining.assign(workload.tensors.size(), 0);
  build_platform(st);
  sg4::Actor::create("main", st.workers[0], [&st]() {
    st.mtx = sg4::Mutex::create();
    st.param_cv = sg4::ConditionVariable::create();
    st.dispatch_cv = sg4::ConditionVariable::create();
    st.migration_cv = sg4::ConditionVariable::create();
    sg4::Actor::create("compute", st.workers[0], [&st]() { compute(st); });
    sg4::Actor::create("dispatcher", st.workers[0], [&st]() { dispatcher(st); });
  });
  engine->run();
  if (st.fwd_start.size() != static_cast<size_t>(sim.iterations + 1))
    throw std::runtime_error("simulation ended early (deadlock): " + std::to_string(st.fwd_start.size()) +
                             " forward passes");
  return collect(st, scheduler_name);
}

nlohmann::json to_json(const IterationResult& r, bool with_log) {
  nlohmann::json j;
  j["scheduler"] = r.scheduler;
  j["iteration_s"] = r.iteration_s;
  j["iteration_mean_s"] = r.iteration_mean_s;
  j["compute_s"] = r.compute_s;
  j["comm_busy_s"] = r.comm_busy_s;
  j["overlap"] = r.overlap;
  j["max_in_flight_bytes"] = r.max_in_flight_bytes;
  j["transfers"] = r.transfers;
  j["rows"] = r.rows;
  auto& spans = j["spans"] = nlohmann::json::array();
  for (const auto& s : r.spans) spans.push_back({s.row, s.start_s, s.end_s, s.label});
  if (with_log) {
    auto& log = j["log"] = nlohmann::json::array();
    for (const auto& t : r.log)
      log.push_back(
          {t.id, t.iteration, t.priority, t.bytes, t.first_tensor, t.start_s, t.end_s, t.in_flight_bytes_after});
  }
  return j;
}

IterationResult iteration_result_from_json(const nlohmann::json& j) {
  IterationResult r;
  r.scheduler = j.at("scheduler").get<std::string>();
  r.iteration_s = j.at("iteration_s").get<std::vector<double>>();
  r.iteration_mean_s = j.at("iteration_mean_s").get<double>();
  r.compute_s = j.at("compute_s").get<double>();
  r.comm_busy_s = j.at("comm_busy_s").get<double>();
  r.overlap = j.at("overlap").get<double>();
  r.max_in_flight_bytes = j.at("max_in_flight_bytes").get<double>();
  r.transfers = j.at("transfers").get<long>();
  r.rows = j.at("rows").get<std::vector<std::string>>();
  for (const auto& s : j.at("spans"))
    r.spans.push_back({s[0].get<int>(), s[1].get<double>(), s[2].get<double>(), s[3].get<std::string>()});
  if (j.contains("log"))
    for (const auto& t : j["log"])
      r.log.push_back({t[0].get<long>(), t[1].get<int>(), t[2].get<double>(), t[3].get<double>(), t[4].get<int>(),
                       t[5].get<double>(), t[6].get<double>(), t[7].get<double>()});
  return r;
}

IterationResult simulate(const TrainingWorkload& workload, const NetworkConfig& net, const std::string& scheduler,
                         const KnobValues& scheduler_params, const SimOptions& sim) {
  net.validate();
  sim.validate();
  validate_scheduler(scheduler, scheduler_params, workload, net);
  if (workload.layers.empty()) throw Error("", 0, "model", "the workload has no layers");
  std::cout.flush();
  std::cerr.flush();
  const std::string data = run_in_child_rethrowing(
      [&] { return to_json(simulate_in_process(workload, net, scheduler, scheduler_params, sim), true).dump(); });
  return iteration_result_from_json(nlohmann::json::parse(data));
}

}  // namespace dmlkit::comm
