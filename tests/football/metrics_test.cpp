// Tagging P/R/F1 and macro-F1 on a hand-counted confusion matrix; segment tIoU matching.
#include <gtest/gtest.h>

#include "football/labels.h"
#include "football/metrics.h"

using namespace dmlkit::football;

TEST(FootballMetrics, PerClassAndMacroF1) {
  auto c = empty_confusion();
  const int goal = coarse_index("goal"), shot = coarse_index("shot"), other = kOther, foul = coarse_index("foul");
  c[goal][goal] = 3;    // 3 goals right
  c[goal][shot] = 1;    // 1 goal called a shot
  c[shot][shot] = 2;
  c[other][other] = 4;
  c[other][foul] = 1;   // foul never true: scored with F1 0 (it was predicted)
  const auto s = tagging_scores(c);
  EXPECT_DOUBLE_EQ(s.precision[goal], 1.0);
  EXPECT_DOUBLE_EQ(s.recall[goal], 0.75);
  EXPECT_NEAR(s.f1[goal], 2 * 0.75 / 1.75, 1e-12);
  EXPECT_NEAR(s.precision[shot], 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(s.recall[shot], 1.0);
  EXPECT_DOUBLE_EQ(s.f1[foul], 0.0);
  EXPECT_TRUE(s.scored[foul]);
  EXPECT_FALSE(s.scored[coarse_index("card")]);
  const double f_other = 2 * 1.0 * 0.8 / 1.8, f_shot = 2 * (2.0 / 3) / (2.0 / 3 + 1);
  EXPECT_NEAR(s.macro_f1, (2 * 0.75 / 1.75 + f_shot + 0 + f_other) / 4, 1e-12);
  EXPECT_NEAR(s.accuracy, 9.0 / 11, 1e-12);
  EXPECT_EQ(s.lines, 11);
}

TEST(FootballMetrics, SegmentIouPairsOneToOneWithinALabel) {
  auto seg = [](const char* label, double a, double b) {
    Segment s;
    s.label = coarse_index(label);
    s.start_s = a;
    s.end_s = b;
    return s;
  };
  EXPECT_DOUBLE_EQ(temporal_iou(0, 10, 5, 15), 5.0 / 15);
  const std::vector<Segment> truth{seg("goal", 0, 10), seg("goal", 100, 110), seg("card", 50, 60)};
  const std::vector<Segment> pred{seg("goal", 2, 10), seg("goal", 1, 9), seg("shot", 50, 60), seg("card", 55, 65)};
  const auto s = segment_scores(pred, truth);
  // goal [0,10]: best pair IoU 0.8 (either [2,10] or [1,9]); the other goal prediction finds no
  // overlapping truth; card IoU 5/15; the shot pairs with nothing.
  EXPECT_NEAR(s.mean_tiou, (0.8 + 0 + 5.0 / 15) / 3, 1e-12);
  EXPECT_NEAR(s.recall[0], 2.0 / 3, 1e-12);  // IoU >= 0.3: goal and card
  EXPECT_NEAR(s.precision[0], 2.0 / 4, 1e-12);
  EXPECT_NEAR(s.recall[1], 1.0 / 3, 1e-12);  // >= 0.5: the goal only
  EXPECT_NEAR(s.recall[2], 1.0 / 3, 1e-12);  // >= 0.7
}
