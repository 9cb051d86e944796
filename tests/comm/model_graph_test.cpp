// Tests of the model-DAG reader: bundled graphs, topological order, scaling and bad input.
#include <gtest/gtest.h>

#include "comm/model_graph.h"
#include "comm/workload.h"
#include "core/error.h"

using namespace dmlkit;
using namespace dmlkit::comm;

namespace {

const std::string kModelGraphDir = std::string(DMLKIT_SOURCE_DIR) + "/data/model-graphs";

Error parse_error(const std::string& text) {
  try {
    parse_model_graph(text, "g.txt", "g");
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return Error("none");
}

const char* kNode =
    " -- Conv2d(3, 64) -- forward_compute_time=1.5, backward_compute_time=2.0, activation_size=8.0, "
    "parameter_size=400.0\n";

}  // namespace

TEST(CommModelGraph, Vgg16MatchesPublishedSizesAndTimes) {
  auto g = load_model("vgg16", kModelGraphDir);
  // VGG-16 has 138,357,544 fp32 parameters (spec 4.3); PipeDream stores bytes.
  EXPECT_DOUBLE_EQ(g.total_param_bytes(), 138357544.0 * 4);
  EXPECT_EQ(g.param_nodes(), 16);  // 13 conv + 3 fc modules
  // Sums of the profile's per-node times (ms in the file, seconds here).
  EXPECT_NEAR(g.total_fwd_s(), 0.251874, 1e-9);
  EXPECT_NEAR(g.total_bwd_s(), 0.438633, 1e-9);
}

TEST(CommModelGraph, Resnet50ParameterCount) {
  auto g = load_model("resnet50", kModelGraphDir);
  // torchvision ResNet-50: 25,557,032 parameters including BatchNorm (spec 4.3).
  EXPECT_DOUBLE_EQ(g.total_param_bytes(), 25557032.0 * 4);
}

TEST(CommModelGraph, EveryBundledModelLoadsInTopologicalOrder) {
  auto names = list_models(kModelGraphDir);
  EXPECT_GE(names.size(), 12u);
  for (const auto& name : names) {
    auto g = load_model(name, kModelGraphDir);
    for (size_t i = 0; i < g.nodes.size(); ++i)
      for (int s : g.nodes[i].succs) EXPECT_GT(s, static_cast<int>(i)) << name;
    auto w = make_workload(g);
    EXPECT_EQ(static_cast<int>(w.tensors.size()), g.param_nodes());
    EXPECT_DOUBLE_EQ(w.total_bytes(), g.total_param_bytes());
  }
}

TEST(CommModelGraph, ParsesNodesAndEdges) {
  std::string text = std::string("a") + kNode + "b" + kNode + "\ta -- b\n";
  auto g = parse_model_graph(text, "g.txt", "g");
  ASSERT_EQ(g.nodes.size(), 2u);
  EXPECT_EQ(g.nodes[0].id, "a");
  EXPECT_DOUBLE_EQ(g.nodes[0].fwd_s, 0.0015);
  EXPECT_DOUBLE_EQ(g.nodes[0].bwd_s, 0.002);
  EXPECT_DOUBLE_EQ(g.nodes[0].param_bytes, 400);
  EXPECT_EQ(g.nodes[0].succs, std::vector<int>{1});
}

TEST(CommModelGraph, SortsTopologically) {
  std::string text = std::string("b") + kNode + "a" + kNode + "\ta -- b\n";
  auto g = parse_model_graph(text, "g.txt", "g");
  EXPECT_EQ(g.nodes[0].id, "a");
  EXPECT_EQ(g.nodes[1].id, "b");
}

TEST(CommModelGraph, UnknownModelNamesTheField) {
  try {
    load_model("no-such-model", kModelGraphDir);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.field(), "model");
    EXPECT_NE(std::string(e.what()).find("vgg16"), std::string::npos);
  }
}

TEST(CommModelGraph, CycleIsAnErrorWithTheLine) {
  std::string text = std::string("a") + kNode + "b" + kNode + "c" + kNode + "\ta -- b\n\tb -- c\n\tc -- b\n";
  auto e = parse_error(text);
  EXPECT_EQ(e.field(), "edge");
  EXPECT_GE(e.line(), 5);
  EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos);
}

TEST(CommModelGraph, MalformedLinesAreErrorsWithFileLineField) {
  auto e = parse_error(std::string("a") + kNode + "this line is garbage\n");
  EXPECT_EQ(e.file(), "g.txt");
  EXPECT_EQ(e.line(), 2);
  e = parse_error(
      "a -- Conv -- forward_compute_time=x, backward_compute_time=1, activation_size=1, parameter_size=1\n");
  EXPECT_EQ(e.field(), "forward_compute_time");
  EXPECT_EQ(e.line(), 1);
  e = parse_error("a -- Conv -- forward_compute_time=1, backward_compute_time=1, activation_size=1\n");
  EXPECT_EQ(e.field(), "parameter_size");
  e = parse_error(
      "a -- Conv -- forward_compute_time=-1, backward_compute_time=1, activation_size=1, parameter_size=1\n");
  EXPECT_EQ(e.field(), "forward_compute_time");
  e = parse_error(std::string("a") + kNode + "\ta -- zz\n");
  EXPECT_EQ(e.field(), "edge");
  EXPECT_EQ(e.line(), 2);
  e = parse_error(std::string("a") + kNode + "a" + kNode);
  EXPECT_EQ(e.line(), 2);
  e = parse_error("\n\n");
  EXPECT_EQ(e.file(), "g.txt");
}

TEST(CommModelGraph, ScaleComputeMultipliesTimes) {
  auto g = load_model("resnet18", kModelGraphDir);
  const double f = g.total_fwd_s(), b = g.total_bwd_s();
  scale_compute(g, 0.5);
  EXPECT_NEAR(g.total_fwd_s(), f * 0.5, 1e-12);
  EXPECT_NEAR(g.total_bwd_s(), b * 0.5, 1e-12);
  EXPECT_THROW(scale_compute(g, 0), Error);
  EXPECT_THROW(scale_compute(g, -2), Error);
}

// Spec 4.3's exact per-parameter tensor tables.
TEST(CommModelGraph, PerParameterTensorsMatchTheExactTables) {
  auto r50 = make_workload(load_model("resnet50", kModelGraphDir), TensorGranularity::parameter);
  EXPECT_EQ(r50.tensors.size(), 161u);  // 53 conv + 53 gamma + 53 beta + fc weight and bias
  EXPECT_DOUBLE_EQ(r50.total_bytes(), 25557032.0 * 4);
  double largest = 0;
  for (const auto& t : r50.tensors) largest = std::max(largest, t.bytes / 4);
  EXPECT_DOUBLE_EQ(largest, 512.0 * 512 * 9);  // layer4's 3x3 convs, 2.359M
  auto vgg = make_workload(load_model("vgg16", kModelGraphDir), TensorGranularity::parameter);
  EXPECT_EQ(vgg.tensors.size(), 32u);
  EXPECT_DOUBLE_EQ(vgg.total_bytes(), 138357544.0 * 4);
  bool fc6 = false;
  for (const auto& t : vgg.tensors) fc6 = fc6 || t.bytes / 4 == 25088.0 * 4096;
  EXPECT_TRUE(fc6);
  auto bert = bert_base_parameters();
  EXPECT_EQ(bert.size(), 199u);
  double total = 0, embeddings = 0;
  for (const auto& [name, n] : bert) {
    total += n;
    if (name.rfind("embeddings.", 0) == 0) embeddings += n;
  }
  EXPECT_DOUBLE_EQ(total, 109482240);
  EXPECT_DOUBLE_EQ(embeddings, 23837184);
  EXPECT_EQ(split_parameters("Conv2d(3, 64, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))", 1792).size(), 2u);
  EXPECT_TRUE(split_parameters("Conv2d(3, 64, kernel_size=(3, 3))", 1000).empty());
}
