// Sweep files: grid expansion (lists, ranges, seeds, units, label axes, templates), stable cell
// names, and one-line errors naming file, line and field.
#include <gtest/gtest.h>

#include "core/error.h"
#include "sweep/sweep_file.h"

namespace dmlkit::sweep {
namespace {

std::vector<std::string> texts(const Axis& a) {
  std::vector<std::string> out;
  for (const auto& v : a.values) out.push_back(v.text);
  return out;
}

std::string error_of(const std::string& text) {
  try {
    parse_sweep_file(text, "s.yaml");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(SweepFile, ExpandsTheIssuesSmallestFileInGridOrder) {
  const SweepFile f = parse_sweep_file(R"(command: cluster simulate
args: {cluster: 16x4}
axes:
  workload: [pollux-1, pollux-2]
  policy: [fifo, tiresias]
  seed: [1, 2]
)",
                                       "s.yaml");
  EXPECT_EQ(f.command, (std::vector<std::string>{"cluster", "simulate"}));
  ASSERT_EQ(grid_size(f), 8u);
  const auto cells = expand(f);
  ASSERT_EQ(cells.size(), 8u);
  // The last axis varies fastest.
  EXPECT_EQ(cells[0].argv, (std::vector<std::string>{"cluster", "simulate", "--cluster=16x4", "--workload=pollux-1",
                                                     "--policy=fifo", "--seed=1"}));
  EXPECT_EQ(cells[1].values["seed"], 1 + 1);
  EXPECT_EQ(cells[2].values["policy"], "tiresias");
  EXPECT_EQ(cells[4].values["workload"], "pollux-2");
  EXPECT_EQ(cells[7].name, "policy=tiresias__seed=2__workload=pollux-2");
  for (size_t i = 0; i < cells.size(); ++i) EXPECT_EQ(cells[i].index, i);
  EXPECT_EQ(f.spread_over, std::vector<std::string>{"seed"});
}

TEST(SweepFile, RangesStepCountFactorAndUnits) {
  const SweepFile f = parse_sweep_file(R"(command: comm compare
axes:
  latency-us: {from: 0.5, to: 2, step: 0.5}
  workers: {from: 2, to: 16, factor: 2}
  compute-scale: {from: 0, to: 1, count: 5}
  bandwidth: {values: [1, 10, 100], unit: Gbps}
  seed: {from: 1, to: 3}
)",
                                       "s.yaml");
  ASSERT_EQ(f.axes.size(), 5u);
  EXPECT_EQ(texts(f.axes[0]), (std::vector<std::string>{"0.5", "1", "1.5", "2"}));
  EXPECT_EQ(texts(f.axes[1]), (std::vector<std::string>{"2", "4", "8", "16"}));
  EXPECT_EQ(texts(f.axes[2]), (std::vector<std::string>{"0", "0.25", "0.5", "0.75", "1"}));
  EXPECT_EQ(texts(f.axes[3]), (std::vector<std::string>{"1Gbps", "10Gbps", "100Gbps"}));
  EXPECT_EQ(f.axes[3].values[1].json, 10);  // recorded as the number
  EXPECT_EQ(texts(f.axes[4]), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_TRUE(f.axes[4].values[0].json.is_number_integer());
  EXPECT_EQ(grid_size(f), 4u * 4 * 5 * 3 * 3);
  // 0.1 steps do not pick up floating-point noise.
  const SweepFile g = parse_sweep_file("command: cluster simulate\naxes: {round: {from: 0.1, to: 0.3, step: 0.1}}\n", "s.yaml");
  EXPECT_EQ(texts(g.axes[0]), (std::vector<std::string>{"0.1", "0.2", "0.3"}));
}

TEST(SweepFile, KnobsFlagsListsAndQuotedStrings) {
  const SweepFile f = parse_sweep_file(R"(command: cluster compare
args:
  policies: [fifo, tiresias]
  drop-oversized: true
  no-event-replan: false
  workload: "1"
axes:
  tiresias.queues: [2, 3]
)",
                                       "s.yaml");
  const auto cells = expand(f);
  ASSERT_EQ(cells.size(), 2u);
  EXPECT_EQ(cells[1].argv, (std::vector<std::string>{"cluster", "compare", "--policies=fifo,tiresias", "--drop-oversized",
                                                     "--workload=1", "--policy-param", "tiresias.queues=3"}));
  EXPECT_TRUE(f.args[3].value.json.is_string());  // quoted: a string
  EXPECT_EQ(cells[1].name, "tiresias.queues=3");
}

TEST(SweepFile, LabelAxesAndTemplates) {
  const SweepFile f = parse_sweep_file(R"(command: cluster compare
args: {cluster: 16x4}
axes:
  load:
    - {value: 0.5, args: {workload: "pollux-0.5-{trace}"}}
    - {value: 1, args: {workload: "pollux-{trace}"}}
  trace: {from: 1, to: 2}
spread_over: [trace]
)",
                                       "s.yaml");
  EXPECT_TRUE(f.axes[0].label);
  EXPECT_TRUE(f.axes[1].label);  // used in a template: substituted, not passed
  const auto cells = expand(f);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[1].argv, (std::vector<std::string>{"cluster", "compare", "--cluster=16x4", "--workload=pollux-0.5-2"}));
  EXPECT_EQ(cells[2].argv, (std::vector<std::string>{"cluster", "compare", "--cluster=16x4", "--workload=pollux-1"}));
  EXPECT_EQ(cells[2].values["load"], 1);
  EXPECT_EQ(cells[2].name, "load=1__trace=1");
  EXPECT_EQ(f.spread_over, std::vector<std::string>{"trace"});
}

TEST(SweepFile, CellNamesAreStable) {
  // Sorted by axis name: the order of the axes in the file does not change a name.
  EXPECT_EQ(cell_name({{"seed", "1"}, {"policy", "fifo"}}), cell_name({{"policy", "fifo"}, {"seed", "1"}}));
  EXPECT_EQ(cell_name({{"policy", "fifo"}, {"seed", "1"}}), "policy=fifo__seed=1");
  EXPECT_EQ(cell_name({}), "base");
  // Path characters never make a sub-folder.
  EXPECT_EQ(cell_name({{"workload", "data/my trace.csv"}}), "workload=data_my_trace.csv");
  // Long names are cut and get a hash of the full values, so they stay distinct.
  const std::string a = cell_name({{"x", std::string(200, 'a') + "1"}});
  const std::string b = cell_name({{"x", std::string(200, 'a') + "2"}});
  EXPECT_NE(a, b);
  EXPECT_LE(a.size(), 140u);
  // The same file gives the same names every time.
  const std::string text = "command: cluster simulate\naxes: {policy: [fifo, srtf], seed: [1, 2]}\n";
  const auto c1 = expand(parse_sweep_file(text, "s.yaml"));
  const auto c2 = expand(parse_sweep_file("command: cluster simulate\naxes: {seed: [1, 2], policy: [fifo, srtf]}\n", "s.yaml"));
  std::vector<std::string> n1, n2;
  for (const auto& c : c1) n1.push_back(c.name);
  for (const auto& c : c2) n2.push_back(c.name);
  std::sort(n1.begin(), n1.end());
  std::sort(n2.begin(), n2.end());
  EXPECT_EQ(n1, n2);
}

TEST(SweepFile, NoAxesIsOneCell) {
  const auto cells = expand(parse_sweep_file("command: cluster simulate\nargs: {policy: fifo}\n", "s.yaml"));
  ASSERT_EQ(cells.size(), 1u);
  EXPECT_EQ(cells[0].name, "base");
}

TEST(SweepFile, ErrorsNameFileLineAndField) {
  EXPECT_EQ(error_of("command: cluster simulate\naxes:\n  policy: []\n"), "s.yaml:3: field 'axes.policy': no values");
  EXPECT_EQ(error_of("command: cluster simulate\naxez: {}\n").rfind("s.yaml:2: field 'axez': unknown field", 0), 0u);
  EXPECT_EQ(error_of("args: {policy: fifo}\n"), "s.yaml: field 'command': missing (e.g. command: cluster simulate)");
  EXPECT_NE(error_of("command: cluster simulate\naxes:\n  out: [a, b]\n").find("s.yaml:3: field 'axes.out': set by dmlkit sweep"),
            std::string::npos);
  EXPECT_EQ(error_of("command: cluster simulate\nargs: {policy: fifo}\naxes: {policy: [srtf]}\n"),
            "s.yaml:3: field 'axes.policy': given twice (an argument is either fixed under args or an axis)");
  EXPECT_EQ(error_of("command: cluster simulate\naxes:\n  seed: [1, 1]\n"), "s.yaml:3: field 'axes.seed': value '1' given twice");
  EXPECT_EQ(error_of("command: cluster simulate\naxes:\n  round: {from: 3, to: 1}\n"),
            "s.yaml:3: field 'axes.round.to': must be >= from");
  EXPECT_EQ(error_of("command: cluster simulate\naxes:\n  round: {from: 1, to: 3, step: 0}\n"),
            "s.yaml:3: field 'axes.round.step': must be > 0");
  EXPECT_EQ(error_of("command: cluster simulate\naxes:\n  seed: {from: 1, to: 1000000}\n"),
            "s.yaml:3: field 'axes.seed': more than 100000 values");
  EXPECT_EQ(error_of("command: cluster simulate --policy fifo\n"),
            "s.yaml:1: field 'command': only the command words; put options under args");
  EXPECT_EQ(error_of("command: cluster simulate\nargs: {workload: \"pollux-{trac}\"}\naxes: {trace: [1]}\n"),
            "s.yaml:2: field 'workload': the template {trac} names no axis");
  EXPECT_EQ(error_of("command: cluster simulate\naxes: {a: [1, 2], b: [1, 2]}\nspread_over: [c]\n"),
            "s.yaml:3: field 'spread_over': 'c' is not an axis");
  EXPECT_NE(error_of("command: [cluster\n").find("s.yaml:"), std::string::npos);
  // 400 x 400 x 400 cells: refused before anything is built.
  EXPECT_EQ(error_of("command: x\naxes: {a: {from: 1, to: 400}, b: {from: 1, to: 400}, c: {from: 1, to: 400}}\n"),
            "s.yaml: field 'axes': the grid has 64000000 cells (at most 100000)");
}

}  // namespace
}  // namespace dmlkit::sweep
