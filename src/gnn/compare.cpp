// `dmlkit gnn compare` (see compare.h).
#include "gnn/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

#include "core/data_dir.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/html_report.h"
#include "core/table.h"

namespace dmlkit::gnn {
namespace {

// Trailing iterations left out of the steady-state mean: with prefetch depth p, the last p + 1
// simulated iterations overlap no later iteration's sampling and transfers, so they run faster
// than in a longer epoch (the drain); the epoch's own drain is in the simulated makespan once.
int cooldown(const CompareOptions& o) { return o.cooldown >= 0 ? o.cooldown : o.job.prefetch + 1; }

Placement place(const std::string& name, const Comparison& c, const CompareOptions& o, const Scheduler& sched,
                const Knobs& explore_knobs, int run_iterations, int total_iterations, PlacementOutcome* outcome) {
  PlacementContext ctx;
  ctx.cluster = &c.cluster;
  ctx.job = &c.job;
  ctx.seed = o.seed;
  // A candidate's cost: the run's own estimate of the mean iteration time over all its
  // iterations, from the first k = min(explore.iterations, simulated iterations) of them: the
  // makespan of those, plus the remaining iterations at their steady-state mean (after
  // --warmup and --cooldown), over all iterations. An epoch of at most k iterations is judged
  // exactly.
  const int eval_iterations = std::min(static_cast<int>(explore_knobs.get_int("explore.iterations")), run_iterations);
  ctx.evaluate = [&, eval_iterations, total_iterations](const Placement& p) {
    SimConfig sc;
    sc.iterations = eval_iterations;
    sc.gantt_iterations = 0;
    const SimResult r = simulate(c.cluster, c.job, p, sched, sc);
    const int warm = std::min(o.warmup, eval_iterations - 1);
    return (r.makespan_s() + (total_iterations - eval_iterations) * r.mean_iteration_s(warm, cooldown(o))) /
           total_iterations;
  };
  ctx.place_by = [&](const std::string& start) {
    return make_placement(start, o.placement_params)->place(ctx).placement;
  };
  PlacementOutcome out = make_placement(name, o.placement_params)->place(ctx);
  require_feasible(c.cluster, c.job, out.placement, name);
  if (outcome) *outcome = out;
  return out.placement;
}

}  // namespace

double speedup(const PairRun& a, const PairRun& b) { return b.total_s / a.total_s - 1; }

namespace {

// A NIC bandwidth as the CLI's default is written ("10Gbps").
std::string bandwidth_text(double Bps) { return fmt::format("{}Gbps", Bps * 8 / 1e9); }

// The data folder and the Gavel file defaulted.
CompareOptions with_data_defaults(CompareOptions o) {
  if (o.data_dir.empty()) o.data_dir = default_data_dir();
  if (o.cluster.gavel_path.empty())
    o.cluster.gavel_path = o.data_dir + "/gavel-throughputs/simulation_throughputs.json";
  return o;
}

}  // namespace

std::vector<std::string> CompareOptions::input_paths() const {
  const CompareOptions o = with_data_defaults(*this);
  std::vector<std::string> inputs{o.data_dir};
  const std::string graph_path = graph_input_path(o.graph, o.data_dir);
  if (!graph_path.empty()) inputs.push_back(graph_path);
  return inputs;
}

void check(const CompareOptions& o) {
  if (o.epochs < 1) throw Error("", 0, "epochs", "must be >= 1");
  if (o.sim_iterations < 2) throw Error("", 0, "sim-iterations", "must be >= 2");
  if (o.warmup < 0 || o.warmup >= o.sim_iterations) throw Error("", 0, "warmup", "must be in [0, sim-iterations)");
  if (o.cooldown < -1) throw Error("", 0, "cooldown", "must be >= 0 (or -1: prefetch + 1)");
  if (o.placements.empty()) throw Error("", 0, "placements", "no placement given");
  if (o.schedulers.empty()) throw Error("", 0, "schedulers", "no scheduler given");
  o.sampler.validate();
  o.job.validate();
  const auto& preg = placement_registry();
  const auto& sreg = scheduler_registry();
  preg.check_knobs(o.placements, o.placement_params);
  sreg.check_knobs(o.schedulers, o.scheduler_params);
  for (size_t i = 0; i < o.placements.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (o.placements[i] == o.placements[k]) throw Error("", 0, "placements", "'" + o.placements[i] + "' given twice");
  for (size_t i = 0; i < o.schedulers.size(); ++i)
    for (size_t k = 0; k < i; ++k)
      if (o.schedulers[i] == o.schedulers[k]) throw Error("", 0, "schedulers", "'" + o.schedulers[i] + "' given twice");
  partitioner_registry().get(o.partitioner);
  partitioner_registry().check_knobs({o.partitioner}, o.partitioner_params);
  (void)parse_graph_format(o.graph_format);
}

Comparison run_compare(const CompareOptions& given, ProgressBar* progress) {
  check(given);
  const CompareOptions o = with_data_defaults(given);
  const GraphFormat format = parse_graph_format(o.graph_format);
  Comparison c;
  c.graph = load_graph(o.graph, format, o.data_dir, o.seed, o.threads, o.max_nodes);
  c.cluster = build_cluster(o.cluster, o.partitions);
  const auto t0 = std::chrono::steady_clock::now();
  c.parts = partition_graph(c.graph, o.partitions, o.partitioner, o.partitioner_params, o.seed, o.threads);
  c.partition_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  c.job = make_job(o.job, c.graph, c.parts, c.graph.default_feature_dim, static_cast<int>(o.sampler.fanouts.size()));

  const auto& preg = placement_registry();
  const Knobs explore_knobs(o.placement_params, preg.get("explore").knobs, preg.style().knob_flag);
  const int explore_iterations = static_cast<int>(explore_knobs.get_int("explore.iterations"));
  // Iterations per epoch come from the training nodes; sample what will be simulated.
  auto probe = sample_iterations(c.graph, c.parts, c.job.trainer_partition, o.sampler, 1, o.threads);
  const int total = probe->iterations_per_epoch * o.epochs;
  const int simulated = std::min(total, o.sim_iterations);
  const bool uses_explore = std::find(o.placements.begin(), o.placements.end(), "explore") != o.placements.end();
  const int needed = std::max(simulated, uses_explore ? explore_iterations : 1);
  c.job.samples = sample_iterations(c.graph, c.parts, c.job.trainer_partition, o.sampler, needed, o.threads);

  for (const auto& sname : o.schedulers) {
    const auto sched = make_scheduler(sname, o.scheduler_params);
    for (const auto& pname : o.placements) {
      PairRun r;
      r.placement = pname;
      r.scheduler = sname;
      // Placements that do not depend on the scheduler are computed once.
      const PairRun* same = nullptr;
      if (pname != "explore")
        for (const auto& prev : c.runs)
          if (prev.placement == pname) same = &prev;
      r.where = same ? same->where : place(pname, c, o, *sched, explore_knobs, simulated, total, &r.search);
      SimConfig sc;
      sc.iterations = simulated;
      sc.gantt_from = std::min(o.warmup, simulated - 1);
      sc.gantt_iterations = o.gantt_iterations;
      r.sim = simulate(c.cluster, c.job, r.where, *sched, sc);
      r.simulated_iterations = simulated;
      r.total_iterations = total;
      r.extrapolated = simulated < total;
      const int warm = std::min(o.warmup, simulated - 1);
      r.iteration_mean_s = r.sim.mean_iteration_s(warm, cooldown(o));
      r.total_s = r.sim.makespan_s() + (total - simulated) * r.iteration_mean_s;
      r.epoch_s = r.total_s / o.epochs;
      const double span = r.sim.makespan_s();
      r.gpu_utilization = span > 0 ? r.sim.gpu_busy_s / (c.job.trainers * span) : 0;
      r.network_utilization = span > 0 ? r.sim.network_bytes / (r.sim.nic_capacity_Bps * span) : 0;
      c.runs.push_back(std::move(r));
      if (progress) progress->update(static_cast<double>(c.runs.size()), c.runs.back().name());
    }
  }
  return c;
}

void add_records(Results& res, const Comparison& c, uint64_t seed) {
  const PairRun* base = nullptr;
  const PairRun* ours = nullptr;
  for (const auto& r : c.runs) {
    if (r.placement == "colocate" && r.scheduler == "fifo-fair") base = &r;
    if (r.placement == "explore" && r.scheduler == "online") ours = &r;
  }
  auto& sp = res.derived()["speedups"] = nlohmann::ordered_json::object();
  for (const auto& r : c.runs) {
    ResultRecord& rec = res.add(r.name(), seed);
    rec.params["placement"] = r.placement;
    rec.params["scheduler"] = r.scheduler;
    auto& m = rec.metrics;
    m["epoch_s"] = r.epoch_s;
    m["total_s"] = r.total_s;
    m["iteration_mean_s"] = r.iteration_mean_s;
    m["speedup_over_colocate_fifo_fair"] = base ? nlohmann::ordered_json(speedup(r, *base)) : nlohmann::ordered_json();
    // How much faster explore+online (the papers' method) is than this pair: T_this / T_ours - 1.
    m["explore_online_speedup"] = ours ? nlohmann::ordered_json(speedup(*ours, r)) : nlohmann::ordered_json();
    m["gpu_utilization"] = r.gpu_utilization;
    m["network_utilization"] = r.network_utilization;
    m["network_bytes"] = r.sim.network_bytes;
    // Instrumentation: the busiest link, idle GPU time and how long flows waited for bandwidth.
    const int busiest = r.sim.busiest_link();
    m["busiest_link"] = busiest >= 0 ? r.sim.link_names[busiest] : "";
    m["busiest_link_utilization"] = r.sim.link_utilization(busiest);
    m["gpu_idle_s"] = c.job.trainers * r.sim.makespan_s() - r.sim.gpu_busy_s;
    for (int k = static_cast<int>(SpanKind::structure_flow); k <= static_cast<int>(SpanKind::sync_flow); ++k) {
      const double n = k < static_cast<int>(r.sim.flow_count.size()) ? r.sim.flow_count[k] : 0;
      const std::string kind = to_string(static_cast<SpanKind>(k));
      m["flow_wait_mean_s_" + kind] = n > 0 ? r.sim.flow_wait_s[k] / n : 0.0;
      m["flow_duration_mean_s_" + kind] = n > 0 ? r.sim.flow_duration_s[k] / n : 0.0;
    }
    auto& links = rec.detail["link_utilization"] = nlohmann::ordered_json::object();
    for (int l = 0; l < static_cast<int>(r.sim.link_names.size()); ++l)
      links[r.sim.link_names[l]] = r.sim.link_utilization(l);
    m["local_bytes"] = r.sim.local_bytes;
    m["simulated_iterations"] = r.simulated_iterations;
    m["iterations"] = r.total_iterations;
    m["extrapolated"] = r.extrapolated;
    if (r.placement == "explore") {
      m["explore_candidates"] = r.search.evaluations;
      m["explore_accepted"] = r.search.accepted;
      m["explore_start_estimate_s"] = r.search.start_estimate_s;
      m["explore_best_estimate_s"] = r.search.best_estimate_s;
    }
    rec.detail["placement"] = r.where;
    rec.detail["iteration_end_s"] = r.sim.iteration_end_s;
    rec.files["spans_csv"] = "spans-" + r.placement + "-" + r.scheduler + ".csv";
    auto& row = sp[r.name()] = nlohmann::ordered_json::object();
    for (const auto& o : c.runs)
      if (&o != &r) row[o.name()] = speedup(r, o);
  }
}

TextTable summary_table(const Comparison& c) {
  const PairRun* ours = nullptr;
  for (const auto& r : c.runs)
    if (r.placement == "explore" && r.scheduler == "online") ours = &r;
  TextTable t({"placement", "scheduler", "epoch_s", "iteration_mean_ms", "gpu_utilization", "network_utilization",
               "busiest_link", "busiest_link_utilization", "network_GB", "explore_online_speedup_pct"});
  for (const auto& r : c.runs) {
    const int busiest = r.sim.busiest_link();
    t.add_row({r.placement, r.scheduler, fixed(r.epoch_s, 3), fixed(r.iteration_mean_s * 1e3, 3),
               fixed(r.gpu_utilization, 3), fixed(r.network_utilization, 3),
               busiest >= 0 ? r.sim.link_names[busiest] : "",
               busiest >= 0 ? fixed(r.sim.link_utilization(busiest), 3) : "", fixed(r.sim.network_bytes / 1e9, 3),
               ours ? fixed(100 * speedup(*ours, r), 1) : ""});
  }
  return t;
}

TextTable placement_table(const Comparison& c) {
  std::vector<std::string> header{"machine", "device", "gpus", "stores"};
  std::vector<const PairRun*> shown;
  std::set<std::string> seen;
  for (const auto& r : c.runs) {
    std::string key;
    for (int m : r.where) key += std::to_string(m) + ",";
    if (!seen.insert(r.placement + "|" + key).second) continue;
    bool dup = false;
    for (auto* s : shown) dup = dup || (s->placement == r.placement && s->where == r.where);
    if (dup) continue;
    shown.push_back(&r);
    header.push_back(r.placement == "explore" ? r.name() : r.placement);
  }
  TextTable t(header);
  for (int m = 0; m < static_cast<int>(c.cluster.machines.size()); ++m) {
    const auto& mc = c.cluster.machines[m];
    std::string stores;
    for (size_t q = 0; q < c.cluster.store_machine.size(); ++q)
      if (c.cluster.store_machine[q] == m) stores += (stores.empty() ? "P" : " P") + std::to_string(q);
    std::vector<std::string> row{std::to_string(m), mc.gpu_type, std::to_string(mc.gpus), stores};
    for (auto* r : shown) {
      std::string cell;
      for (size_t k = 0; k < r->where.size(); ++k)
        if (r->where[k] == m) {
          const auto& task = c.job.tasks[k];
          const char* letter = task.kind == TaskKind::trainer ? "T" : task.kind == TaskKind::sampler ? "S" : "PS";
          cell += (cell.empty() ? "" : " ") + std::string(letter) + std::to_string(task.index);
        }
      row.push_back(cell);
    }
    t.add_row(row);
  }
  return t;
}

TextTable spans_table(const PairRun& r) {
  TextTable t({"kind", "machine", "source", "trainer", "iteration", "partition", "bytes", "start_s", "end_s"});
  for (const auto& s : r.sim.spans)
    t.add_row({to_string(s.kind), std::to_string(s.machine), s.source < 0 ? "" : std::to_string(s.source),
               s.trainer < 0 ? "" : std::to_string(s.trainer), std::to_string(s.iteration),
               s.partition < 0 ? "" : std::to_string(s.partition), fixed(s.bytes, 0), fixed(s.start_s, 6),
               fixed(s.end_s, 6)});
  return t;
}

namespace {

// Gantt of the kept iterations: per machine used three rows (GPU compute, CPU sampling, NIC in),
// one bar per task or incoming flow, coloured by kind (core/html_report.h's GanttChart, as comm's).
GanttChart gantt(const Comparison& c, const PairRun& r) {
  GanttChart chart;
  chart.title = "Gantt of the kept iterations per machine: " + r.name();
  chart.x_title = "time (ms)";
  chart.y_title = "machine and resource";
  double t0 = INFINITY, t1 = 0;
  for (const auto& s : r.sim.spans) t0 = std::min(t0, s.start_s), t1 = std::max(t1, s.end_s);
  if (!std::isfinite(t0)) return chart;
  chart.x_min = 0;
  chart.x_max = (t1 - t0) * 1e3;
  const int M = static_cast<int>(c.cluster.machines.size());
  std::vector<char> used(M, 0);
  for (int m : r.where) used[m] = 1;
  for (int m : c.cluster.store_machine) used[m] = 1;
  std::vector<size_t> first_row(M, 0);
  for (int m = 0; m < M; ++m) {
    if (!used[m]) continue;
    first_row[m] = chart.rows.size();
    for (const char* lane : {" GPU", " CPU", " NIC in"}) chart.rows.push_back("m" + std::to_string(m) + lane);
  }
  for (const auto& s : r.sim.spans) {
    if (s.kind == SpanKind::sync || s.machine < 0 || s.machine >= M || !used[s.machine]) continue;
    const size_t lane = s.kind == SpanKind::compute ? 0 : s.kind == SpanKind::sample ? 1 : 2;
    std::string name = "iteration " + std::to_string(s.iteration);
    if (s.trainer >= 0) name += ", trainer " + std::to_string(s.trainer);
    if (s.source >= 0) name += ", from m" + std::to_string(s.source) + ", " + fixed(s.bytes / 1e6, 2) + " MB";
    chart.bars.push_back({first_row[s.machine] + lane, (s.start_s - t0) * 1e3, (s.end_s - t0) * 1e3, to_string(s.kind),
                          std::move(name)});
  }
  return chart;
}

}  // namespace

HtmlReport report(const CompareOptions& o, const Comparison& c) {
  HtmlReport rep("dmlkit gnn: " + c.graph.name + ", " + std::to_string(c.parts.parts) + " partitions, " +
                 std::to_string(c.cluster.machines.size()) + " machines");
  std::string fanouts;
  for (int f : o.sampler.fanouts) fanouts += (fanouts.empty() ? "" : ",") + std::to_string(f);
  rep.add_facts(
      {{"Graph", c.graph.name + " (" + std::to_string(c.graph.nodes) + " nodes, " +
                     std::to_string(c.graph.undirected_edges()) + " undirected edges)"},
       {"Partitioning", o.partitioner + ", " + std::to_string(c.parts.parts) + " parts, " +
                            std::to_string(c.parts.cut_edges) + " cut edges" +
                            (c.parts.coarse_nodes > 0
                                 ? " (multilevel pre-step: " + std::to_string(c.parts.coarse_nodes) + " supernodes)"
                                 : std::string())},
       {"Cluster", std::to_string(c.cluster.machines.size()) + " machines, devices " + o.cluster.devices + ", NIC " +
                       fixed(o.cluster.nic_Bps * 8 / 1e9, 1) + " Gbps"},
       {"Job", std::to_string(c.job.trainers) + " trainers, fanouts " + fanouts + ", batch " +
                   std::to_string(o.sampler.batch) + ", feature dim " + std::to_string(c.job.feature_dim) + ", sync " +
                   to_string(o.job.sync) + ", prefetch " + std::to_string(o.job.prefetch)},
       {"Iterations",
        c.runs.empty() ? ""
                       : std::to_string(c.runs[0].total_iterations) + " in " + std::to_string(o.epochs) +
                             " epoch(s), " + std::to_string(c.runs[0].simulated_iterations) + " simulated" +
                             (c.runs[0].extrapolated ? " (the rest extrapolated from the steady-state mean)" : "")}});
  rep.add_paragraph(
      "The system model, the online scheduler and the exploratory placement are our reconstruction from "
      "the abstracts of Luo, Bao and Wu (INFOCOM 2022, TNET 2024), not the papers' exact algorithms; "
      "see docs/gnn.md.");
  rep.add_heading("Epoch time per placement and scheduler");
  rep.add_table(
      summary_table(c),
      "explore_online_speedup_pct = 100 x (T(this) / T(explore+online) - 1). gpu_utilization: mean busy share of "
      "the trainers' GPUs; network_utilization: bytes on the network / (sum of NIC bandwidths x time).");
  rep.add_heading("Placements");
  rep.add_table(placement_table(c),
                "T = trainer, S = sampler, PS = parameter-server shard; stores = graph-store "
                "partitions (fixed).");
  for (const auto& r : c.runs)
    if (r.placement == "explore" && !r.search.trace_s.empty()) {
      rep.add_heading("Exploratory search (" + r.scheduler + ")", 3);
      LineChart ch;
      ch.title = "Evaluated iteration time per candidate";
      ch.x_title = "candidate";
      ch.y_title = "iteration (ms)";
      ChartSeries a{"candidate", {}, {}}, b{"best so far", {}, {}};
      for (size_t i = 0; i < r.search.trace_s.size(); ++i) {
        a.x.push_back(i);
        a.y.push_back(r.search.trace_s[i] * 1e3);
        b.x.push_back(i);
        b.y.push_back(r.search.best_trace_s[i] * 1e3);
      }
      ch.series = {a, b};
      rep.add_chart(ch);
    }
  rep.add_heading("Gantt of a few iterations per machine");
  for (const auto& r : c.runs) rep.add_chart(gantt(c, r));
  return rep;
}

void CompareOptions::write_inputs(Results& res, const Comparison& cmp) const {
  auto& in = res.inputs();
  in["graph"] = graph;
  in["graph_nodes"] = cmp.graph.nodes;
  in["graph_edges"] = cmp.graph.undirected_edges();
  in["partitions"] = partitions;
  in["partitioner"] = partitioner;
  in["cut_edges"] = cmp.parts.cut_edges;
  in["partition_imbalance"] = cmp.parts.imbalance();
  if (cmp.parts.coarse_nodes > 0) {
    in["coarse_nodes"] = cmp.parts.coarse_nodes;
    in["coarse_edges"] = cmp.parts.coarse_edges;
    in["coarsen_levels"] = cmp.parts.coarsen_levels;
  }
  auto& pap = in["partitioner_params"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : partitioner_params) pap[k] = v;
  in["machines"] = cluster.machines;
  in["devices"] = cluster.devices;
  in["gpus_per_machine"] = cluster.gpus_per_machine;
  in["cores"] = cluster.cores;
  in["memory_GB"] = cluster.memory_GB;
  in["bandwidth_Bps"] = cluster.nic_Bps;
  in["racks"] = cluster.racks;
  in["uplink_Bps"] = cluster.uplink_Bps;
  in["store_machines"] = cmp.cluster.store_machine;
  in["speed_model"] = cluster.speed_model;
  auto& speeds = in["gpu_speed"] = nlohmann::ordered_json::object();
  for (const auto& m : cmp.cluster.machines) speeds[m.gpu_type] = m.gpu_speed;
  in["fanouts"] = sampler.fanouts;
  in["batch"] = sampler.batch;
  in["train_fraction"] = sampler.train_fraction;
  in["feature_dim"] = cmp.job.feature_dim;
  in["bytes_per_feature"] = job.bytes_per_feature;
  in["hidden"] = job.hidden;
  in["classes"] = job.classes;
  in["v100_TFLOPS"] = job.v100_TFLOPS;
  in["sync"] = to_string(job.sync);
  in["prefetch"] = job.prefetch;
  in["trainers"] = cmp.job.trainers;
  in["gradient_bytes"] = cmp.job.gradient_bytes;
  in["epochs"] = epochs;
  in["sim_iterations"] = sim_iterations;
  in["warmup"] = warmup;
  in["cooldown"] = cooldown >= 0 ? cooldown : job.prefetch + 1;
  in["placements"] = placements;
  in["schedulers"] = schedulers;
  auto& pp = in["placement_params"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : placement_params) pp[k] = v;
  auto& sp = in["scheduler_params"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : scheduler_params) sp[k] = v;
  in["seeds"] = nlohmann::ordered_json::array({seed});
}

comm::RunOutput run(const CompareOptions& o, ProgressBar* progress) {
  const Comparison cmp = run_compare(o, progress);
  comm::RunOutput out(Results("gnn compare", "policy"), "", summary_table(cmp).header());
  o.write_inputs(out.results, cmp);
  add_records(out.results, cmp, o.seed);
  for (const auto& r : cmp.runs)
    out.files.emplace_back("spans-" + r.placement + "-" + r.scheduler + ".csv", spans_table(r).to_csv());
  out.files.emplace_back("placements.csv", placement_table(cmp).to_csv());
  out.report = report(o, cmp);
  out.summary = summary_table(cmp);
  out.before_table = cmp.graph.name + " (" + std::to_string(cmp.graph.nodes) + " nodes), " +
                     std::to_string(o.partitions) + " partitions (" + o.partitioner + "), " +
                     std::to_string(o.cluster.machines) + " machines " + o.cluster.devices + ", " +
                     bandwidth_text(o.cluster.nic_Bps) + ", " + std::to_string(cmp.job.trainers) + " trainers, " +
                     std::to_string(cmp.runs.empty() ? 0 : cmp.runs[0].total_iterations) + " iterations (" +
                     std::to_string(cmp.runs.empty() ? 0 : cmp.runs[0].simulated_iterations) + " simulated)\n\n";
  return out;
}

}  // namespace dmlkit::gnn
