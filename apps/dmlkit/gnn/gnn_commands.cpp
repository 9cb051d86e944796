// `dmlkit gnn ...`: task placement and transfer scheduling of distributed GNN training on SimGrid
// (docs/gnn.md): `gnn list` shows the placement and scheduling policies, `gnn compare` runs every
// pair on one graph, partitioning and cluster and writes results.json, CSV tables and report.html.
#include <ostream>
#include <sstream>

#include "comm/network.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "core/output_dir.h"
#include "core/progress.h"
#include "dmlkit/comm/comm_run.h"
#include "dmlkit/commands.h"
#include "dmlkit/folder_help.h"
#include "dmlkit/option_checks.h"
#include "dmlkit/run_output.h"
#include "gnn/compare.h"
#include "gnn/placement.h"
#include "gnn/scheduler.h"

namespace dmlkit::app {
namespace {

struct GnnCompareCli {
  gnn::CompareOptions o;
  std::string bandwidth = "10Gbps";
  std::string uplink;
  double latency_us = 5;
  std::vector<std::string> slow_nics;
  std::string sync = "allreduce";
  double overhead_ms = 2, pcie_GBps = 12, sample_us_per_edge = 0.2;
  std::vector<std::string> placement_params, scheduler_params, partitioner_params;
  OutputOptions output{"out/gnn-compare"};
};

void gnn_add_list(CLI::App& gnn, Context& ctx) {
  auto& verbose = ctx.make<bool>();
  auto* cmd =
      gnn.add_subcommand("list", "List the placement and scheduling policies and the partitioners")->alias("policies");
  cmd->add_flag("-v,--verbose", verbose,
                "Also print each one's summary and knobs (--placement-param, --scheduler-param, --partitioner-param)");
  auto& format = ctx.make<std::string>();
  add_list_format_option(*cmd, format);
  cmd->callback([&] {
    ctx.run = [&] {
      if (format == "json") {  // one array; "role" says placement or scheduler
        std::ostringstream p, q;
        gnn::placement_registry().print_json(
            p, [](const auto&) { return std::string("placement"); }, {}, "role");
        gnn::scheduler_registry().print_json(
            q, [](const auto&) { return std::string("scheduler"); }, {}, "role");
        std::ostringstream r;
        gnn::partitioner_registry().print_json(
            r, [](const auto&) { return std::string("partitioner"); }, {}, "role");
        auto all = nlohmann::ordered_json::parse(p.str());
        for (auto& e : nlohmann::ordered_json::parse(q.str())) all.push_back(std::move(e));
        for (auto& e : nlohmann::ordered_json::parse(r.str())) all.push_back(std::move(e));
        ctx.out << all.dump(2) << "\n";
        return 0;
      }
      ctx.out << "placements:\n";
      gnn::placement_registry().print(ctx.out, verbose);
      ctx.out << "schedulers:\n";
      gnn::scheduler_registry().print(ctx.out, verbose);
      ctx.out << "partitioners:\n";
      gnn::partitioner_registry().print(ctx.out, verbose);
      return 0;
    };
  });
}

std::pair<int, double> gnn_index_fraction(const std::string& s, const std::string& flag) {
  const size_t colon = s.find(':');
  try {
    if (colon == std::string::npos) throw std::invalid_argument("");
    size_t a = 0, b = 0;
    const int i = std::stoi(s.substr(0, colon), &a);
    const double f = std::stod(s.substr(colon + 1), &b);
    if (a != colon || b != s.size() - colon - 1) throw std::invalid_argument("");
    return {i, f};
  } catch (const std::exception&) {
    throw Error("", 0, flag, "expected I:F, got '" + s + "'");
  }
}

// The options given in the CLI's units into the spec's (bytes/s, seconds), then the spec's checks.
void gnn_fill_spec(GnnCompareCli& c) {
  auto& o = c.o;
  o.cluster.nic_Bps = comm::parse_bandwidth(c.bandwidth, "bandwidth");
  if (!c.uplink.empty()) o.cluster.uplink_Bps = comm::parse_bandwidth(c.uplink, "uplink-bandwidth");
  o.cluster.latency_s = c.latency_us * 1e-6;
  o.cluster.slow_nics.clear();
  for (const auto& s : c.slow_nics) o.cluster.slow_nics.push_back(gnn_index_fraction(s, "slow-nic"));
  o.job.sync = gnn::parse_sync(c.sync);
  o.job.overhead_s = c.overhead_ms * 1e-3;
  o.job.pcie_Bps = c.pcie_GBps * 1e9;
  o.job.sample_s_per_edge = c.sample_us_per_edge * 1e-6;
  o.placement_params.clear();
  o.scheduler_params.clear();
  add_knob_values(o.placement_params, c.placement_params, "--placement-param");
  add_knob_values(o.scheduler_params, c.scheduler_params, "--scheduler-param");
  o.partitioner_params.clear();
  add_knob_values(o.partitioner_params, c.partitioner_params, "--partitioner-param");
}

int gnn_run_compare(GnnCompareCli& c, Context& ctx) {
  gnn_fill_spec(c);
  OutputDir dir(c.output.out, c.o.input_paths());
  ProgressBar bar("gnn compare", static_cast<double>(c.o.placements.size() * c.o.schedulers.size()));
  const comm::RunOutput run = gnn::run(c.o, &bar);
  bar.finish();
  return write_and_print(run, dir, c.output, ctx);
}

void gnn_add_compare(CLI::App& gnn, Context& ctx) {
  auto& c = ctx.make<GnnCompareCli>();
  auto& o = c.o;
  auto* cmd =
      gnn.add_subcommand("compare", "Compare task placements x schedulers of distributed GNN training (SimGrid)");
  cmd->add_option("--graph", o.graph, "Graph: NetHEPT, cora, citeseer, pubmed, rmat:nodes=N,edge_factor=F, or a file")
      ->capture_default_str();
  cmd->add_option("--graph-format", o.graph_format, "File format: auto, header (NetHEPT's) or edges (SNAP text)")
      ->capture_default_str();
  cmd->add_option("--max-nodes", o.max_nodes, dmlkit::kMaxNodesHelp);
  cmd->add_option("--partitions", o.partitions, "Graph partitions = graph-store servers")
      ->capture_default_str()
      ->check(at_least(1));
  cmd->add_option("--partitioner", o.partitioner, "metis, random or hash (see `dmlkit gnn list`)")
      ->capture_default_str();
  cmd->add_option("--partitioner-param", c.partitioner_params,
                  "Partitioner knob key=value (repeatable), e.g. metis.coarse_nodes=500000");
  cmd->add_option("--machines", o.cluster.machines, "Machines")->capture_default_str()->check(at_least(1));
  cmd->add_option("--devices", o.cluster.devices,
                  "Machines per GPU type, in order: type:count,... (k80, p100, v100, none = no GPU)")
      ->capture_default_str();
  cmd->add_option("--gpus-per-machine", o.cluster.gpus_per_machine, "GPUs of a GPU machine")
      ->capture_default_str()
      ->check(at_least(1));
  cmd->add_option("--cores", o.cluster.cores, "CPU cores per machine")->capture_default_str()->check(at_least(1));
  cmd->add_option("--memory-GB", o.cluster.memory_GB, "Memory per machine, GB")->capture_default_str()->check(above(0));
  cmd->add_option("--bandwidth", c.bandwidth, "NIC bandwidth per direction, e.g. 10Gbps, 25Gbit/s")
      ->capture_default_str();
  cmd->add_option("--slow-nic", c.slow_nics, "I:F - machine I's NIC has fraction F of --bandwidth (repeatable)");
  cmd->add_option("--racks", o.cluster.racks, "Racks (machines spread evenly, in order)")
      ->capture_default_str()
      ->check(at_least(1));
  cmd->add_option("--uplink-bandwidth", c.uplink, "Rack uplink per direction (default: sum of its NICs)");
  cmd->add_option("--latency-us", c.latency_us, "Latency per hop, microseconds")
      ->capture_default_str()
      ->check(at_least(0));
  cmd->add_option("--store-machines", o.cluster.store_machines,
                  "Machine of each partition's graph-store server (default: partition q on q x machines / partitions)")
      ->delimiter(',');
  cmd->add_option(
         "--speed-model", o.cluster.speed_model,
         "GPU speed ratios from the Gavel throughputs: geomean or a job type, e.g. 'ResNet-50 (batch size 64)'")
      ->capture_default_str();
  cmd->add_option("--fanouts", o.sampler.fanouts, "Neighbours sampled per hop, from the seeds outward")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--batch", o.sampler.batch, "Seed nodes per trainer and iteration")->capture_default_str();
  cmd->add_option("--train-fraction", o.sampler.train_fraction, "Share of nodes that are training seeds")
      ->capture_default_str();
  cmd->add_option("--feature-dim", o.job.feature_dim, "Node feature dimension (0 = the data set's, else 256)")
      ->capture_default_str();
  cmd->add_option("--bytes-per-feature", o.job.bytes_per_feature, "Bytes per feature value")->capture_default_str();
  cmd->add_option("--hidden", o.job.hidden, "Hidden dimension of the GraphSAGE model")->capture_default_str();
  cmd->add_option("--classes", o.job.classes, "Output classes")->capture_default_str();
  cmd->add_option("--v100-TFLOPS", o.job.v100_TFLOPS, "Effective GNN throughput of a V100 (others scale by speed)")
      ->capture_default_str();
  cmd->add_option("--overhead-ms", c.overhead_ms, "Fixed GPU time per compute task, ms")
      ->capture_default_str()
      ->check(at_least(0));
  cmd->add_option("--pcie-GBps", c.pcie_GBps, "Host-to-GPU copy of the input features, GB/s")
      ->capture_default_str()
      ->check(above(0));
  cmd->add_option("--sample-us-per-edge", c.sample_us_per_edge, "CPU microseconds per sampled edge")
      ->capture_default_str()
      ->check(at_least(0));
  cmd->add_option("--sampler-threads", o.job.sampler_threads, "Cores a sampling task uses")->capture_default_str();
  cmd->add_option("--trainer-cores", o.job.trainer_cores, "Cores a trainer reserves")->capture_default_str();
  cmd->add_option("--trainers-per-partition", o.job.trainers_per_partition, "Trainers (and samplers) per partition")
      ->capture_default_str();
  cmd->add_option("--sync", c.sync, "Gradient synchronisation: allreduce (ring) or ps")->capture_default_str();
  cmd->add_option("--ps-servers", o.job.ps_servers, "PS shards (--sync ps)")->capture_default_str();
  cmd->add_option("--prefetch", o.job.prefetch, "Iterations sampling and transfers may run ahead of compute")
      ->capture_default_str();
  cmd->add_option("--epochs", o.epochs, "Epochs")->capture_default_str()->check(at_least(1));
  cmd->add_option("--sim-iterations", o.sim_iterations,
                  "Simulate at most this many iterations; the rest of the epochs is extrapolated from the steady state")
      ->capture_default_str();
  cmd->add_option("--warmup", o.warmup, "Leading iterations left out of the steady-state mean")->capture_default_str();
  cmd->add_option("--cooldown", o.cooldown,
                  "Trailing simulated iterations left out of the steady-state mean (they drain the pipeline); "
                  "-1 = prefetch + 1")
      ->capture_default_str();
  cmd->add_option("--gantt-iterations", o.gantt_iterations, "Iterations drawn in the report's Gantt")
      ->capture_default_str();
  cmd->add_option("--placements", o.placements, "Comma-separated placements (see `dmlkit gnn list`)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--schedulers", o.schedulers, "Comma-separated schedulers (see `dmlkit gnn list`)")
      ->delimiter(',')
      ->capture_default_str();
  cmd->add_option("--placement-param", c.placement_params,
                  "Placement knob key=value (repeatable), e.g. explore.candidates=50");
  cmd->add_option("--scheduler-param", c.scheduler_params,
                  "Scheduler knob key=value (repeatable), e.g. online.chunks=4");
  cmd->add_option("--seed", o.seed, "Random seed (sampling, partitioning, random placement, explore)")
      ->capture_default_str();
  cmd->add_option("--threads", o.threads,
                  "Threads for R-MAT generation, the metis pre-step (at most 8) and sampling (0 = all cores); "
                  "the results do not depend on it")
      ->capture_default_str();
  cmd->add_option("--data-dir", o.data_dir, std::string("Folder of bundled data (") + kDataDirDefault + ")");
  add_output_options(*cmd, c.output.out, c.output.format);
  cmd->callback([&] { ctx.run = [&] { return gnn_run_compare(c, ctx); }; });
}

}  // namespace

void add_gnn_commands(CLI::App& app, Context& ctx) {
  auto* gnn = app.add_subcommand("gnn", "Task placement and transfer scheduling of distributed GNN training (SimGrid)");
  gnn->require_subcommand(1);
  gnn_add_list(*gnn, ctx);
  gnn_add_compare(*gnn, ctx);
}

}  // namespace dmlkit::app
