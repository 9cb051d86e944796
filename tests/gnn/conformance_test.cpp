// Conformance of every registered placement, scheduler and partitioner of gnn/ (registry.cpp,
// partition.cpp): each runs on a tiny case (cora, two partitions, two machines), its declared knobs
// parse and are read (default or given), and a bad knob value or an undeclared knob is refused.
// A new policy is covered by registering it.
#include <gtest/gtest.h>

#include "core/error.h"
#include "gnn/compare.h"
#include "gnn/gnn_test_util.h"
#include "gnn/partition.h"
#include "gnn/placement.h"
#include "gnn/scheduler.h"

namespace dmlkit::gnn {
namespace {

CompareOptions gnn_conformance_case() {
  CompareOptions o;
  o.graph = "cora";
  o.data_dir = fixture::data_dir();
  o.partitions = 2;
  o.cluster.machines = 2;
  o.cluster.devices = "v100:2";
  o.sampler.batch = 64;
  o.sim_iterations = 3;
  o.warmup = 0;
  o.cooldown = 0;
  o.gantt_iterations = 1;
  o.threads = 1;
  o.placement_params = {{"explore.candidates", "2"}, {"explore.iterations", "2"}};
  return o;
}

// A value the knob accepts, other than "not-a-value".
std::string gnn_conformance_value(const KnobSpec& k) {
  if (k.type == KnobType::Enum) return k.choices.front();
  return k.default_value;
}

// Every knob of `registry`: its default parses when given, a bad value and an unknown knob fail.
template <class Registry, class Make>
void gnn_conformance_knobs(const Registry& registry, Make make) {
  for (const auto& e : registry.entries()) {
    SCOPED_TRACE(e.name);
    EXPECT_FALSE(e.summary.empty());
    EXPECT_NO_THROW(make(e.name, KnobValues{}));
    for (const auto& k : e.knobs) {
      SCOPED_TRACE(k.name);
      EXPECT_FALSE(k.help.empty());
      const KnobValues good{{k.name, gnn_conformance_value(k)}};
      EXPECT_NO_THROW(registry.check_knobs({e.name}, good));
      EXPECT_NO_THROW(make(e.name, good));
      if (k.type != KnobType::String) {
        const KnobValues bad{{k.name, "not-a-value"}};
        EXPECT_THROW(registry.check_knobs({e.name}, bad), Error);
      }
    }
    EXPECT_THROW(registry.check_knobs({e.name}, {{e.name + ".no_such_knob", "1"}}), Error);
  }
}

TEST(GnnConformance, EveryKnobParsesAndBadValuesAreRefused) {
  gnn_conformance_knobs(placement_registry(), [](const std::string& n, const KnobValues& v) { make_placement(n, v); });
  gnn_conformance_knobs(scheduler_registry(), [](const std::string& n, const KnobValues& v) { make_scheduler(n, v); });
  gnn_conformance_knobs(partitioner_registry(), [](const std::string& n, const KnobValues& v) {
    partitioner_registry().get(n).make(Knobs(v, partitioner_registry().get(n).knobs, "--partitioner-param"));
  });
}

TEST(GnnConformance, EveryPlacementAndSchedulerRunsOnATinyCase) {
  CompareOptions o = gnn_conformance_case();
  o.placements = placement_registry().names();
  o.schedulers = scheduler_registry().names();
  const comm::RunOutput out = run(o);
  ASSERT_EQ(out.results.records().size(), o.placements.size() * o.schedulers.size());
  for (const auto& rec : out.results.records()) {
    SCOPED_TRACE(rec.name);
    EXPECT_GT(rec.metrics["epoch_s"].get<double>(), 0);
    EXPECT_GT(rec.metrics["iteration_mean_s"].get<double>(), 0);
  }
  // Deterministic: the same spec gives the same records.
  EXPECT_EQ(run(o).results.json_text(), out.results.json_text());
}

TEST(GnnConformance, EveryPartitionerPartitionsATinyGraph) {
  for (const auto& name : partitioner_registry().names()) {
    SCOPED_TRACE(name);
    CompareOptions o = gnn_conformance_case();
    o.partitioner = name;
    o.placements = {"colocate"};
    o.schedulers = {"fifo-fair"};
    o.placement_params.clear();
    const Comparison c = run_compare(o);
    ASSERT_EQ(c.parts.parts, 2);
    EXPECT_EQ(c.parts.nodes_per_part[0] + c.parts.nodes_per_part[1], c.graph.nodes);
  }
}

TEST(GnnRun, CheckNamesTheBadField) {
  auto refused = [](const CompareOptions& o) -> std::string {
    try {
      check(o);
    } catch (const Error& e) {
      return e.field().empty() ? std::string(e.what()) : e.field();
    }
    return "accepted";
  };
  CompareOptions o = gnn_conformance_case();
  EXPECT_EQ(refused(o), "accepted");
  o.epochs = 0;
  EXPECT_EQ(refused(o), "epochs");
  o = gnn_conformance_case();
  o.warmup = 5;
  EXPECT_EQ(refused(o), "warmup");
  o = gnn_conformance_case();
  o.placements = {"explore", "explore"};
  EXPECT_EQ(refused(o), "placements");
  o = gnn_conformance_case();
  o.schedulers = {"magic"};
  EXPECT_EQ(refused(o), "schedulers");
  o = gnn_conformance_case();
  o.graph_format = "xml";
  EXPECT_NE(refused(o), "accepted");
}

}  // namespace
}  // namespace dmlkit::gnn
