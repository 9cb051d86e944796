// SoccerNet average-mAP on hand-computed cases (semantics of SoccerNet's ActionSpotting.py).
#include <gtest/gtest.h>

#include "football/labels.h"
#include "football/spotting_map.h"

using namespace dmlkit::football;

namespace {
TimedEvent ev(double t, int label, double conf = 1, int period = 1) {
  TimedEvent e;
  e.period = period;
  e.t_s = t;
  e.label = label;
  e.confidence = conf;
  return e;
}
const int kGoal = 0, kShot = 1;
}  // namespace

TEST(FootballSpotting, ToleranceIsHalfTheDeltaEachSide) {
  // Truth at 10 s (frame 20), prediction at 11 s (frame 22): a hit when delta*2/2 >= 2 frames.
  SpottingGame g{{ev(10, kGoal)}, {ev(11, kGoal, 0.8)}};
  const auto tight = average_map({g}, {kGoal}, tight_deltas_s());
  ASSERT_EQ(tight.map_per_delta.size(), 5u);
  EXPECT_DOUBLE_EQ(tight.map_per_delta[0], 0.0);  // delta 1 s: |2| > 1 frame
  EXPECT_DOUBLE_EQ(tight.map_per_delta[1], 1.0);  // delta 2 s: |2| <= 2
  EXPECT_DOUBLE_EQ(tight.average_map, (0.5 + 1 + 1 + 1) / 4);  // trapezoid over 1..5 s
  EXPECT_DOUBLE_EQ(average_map({g}, {kGoal}, loose_deltas_s()).average_map, 1.0);
}

TEST(FootballSpotting, ElevenPointApAndEmptyClassesCountAsZero) {
  // Truth at 10 s and 100 s; predictions at 10 s (0.9, a hit) and 50 s (0.6, a false alarm).
  // Thresholds <= 0.6: P 1/2, R 1/2; (0.6, 0.9]: P 1, R 1/2. AP = (1 + 5 x 1 + 5 x 0) / 11.
  SpottingGame g{{ev(10, kGoal), ev(100, kGoal)}, {ev(10, kGoal, 0.9), ev(50, kGoal, 0.6)}};
  EXPECT_NEAR(average_map({g}, {kGoal}, loose_deltas_s()).average_map, 6.0 / 11, 1e-12);
  // A dictionary class with no event at all scores 0 and halves the mean, as in SoccerNet.
  const auto two = average_map({g}, {kGoal, kShot}, loose_deltas_s());
  EXPECT_NEAR(two.average_map, 3.0 / 11, 1e-12);
  EXPECT_NEAR(two.average_ap_per_class[0], 6.0 / 11, 1e-12);
  EXPECT_DOUBLE_EQ(two.average_ap_per_class[1], 0.0);
}

TEST(FootballSpotting, EachPredictionMatchesOneTruthAndClassesAndHalvesStaySeparate) {
  // Two true goals 1 s apart, one prediction between them: the first truth takes it.
  SpottingGame g{{ev(10, kGoal), ev(11, kGoal)}, {ev(10.5, kGoal, 0.7)}};
  EXPECT_NEAR(average_map({g}, {kGoal}, {5}).average_map, 6.0 / 11, 1e-12);  // P 1, R 1/2
  // A shot prediction does not hit a goal; the same time in the other half does not either.
  SpottingGame h{{ev(10, kGoal)}, {ev(10, kShot, 0.9), ev(10, kGoal, 0.9, 2)}};
  EXPECT_DOUBLE_EQ(average_map({h}, {kGoal}, {5}).average_map, 0.0);
}

TEST(FootballSpotting, ALaterPredictionOnTheSameFrameOverwrites) {
  // Truth at 20 s. Predictions on frame 40: 0.9 then 0.2 (the 0.2 stays); a false alarm at 200 s
  // with 0.5. Thresholds <= 0.2: P 1/2, R 1; (0.2, 0.5]: P 0, R 0. AP = 11 x 0.5 / 11.
  SpottingGame g{{ev(20, kGoal)}, {ev(20, kGoal, 0.9), ev(20.2, kGoal, 0.2), ev(200, kGoal, 0.5)}};
  EXPECT_NEAR(average_map({g}, {kGoal}, {5}).average_map, 0.5, 1e-12);
}

TEST(FootballSpotting, GamesArePooled) {
  // Game A: a hit at 0.9; game B: a miss (false alarm at 0.95, truth elsewhere).
  // Pooled: t <= 0.9: P 1/2, R 1/2; (0.9, 0.95]: P 0, R 0. AP = (0.5 + 5 x 0.5) / 11.
  SpottingGame a{{ev(10, kGoal)}, {ev(10, kGoal, 0.9)}};
  SpottingGame b{{ev(300, kGoal)}, {ev(10, kGoal, 0.95)}};
  EXPECT_NEAR(average_map({a, b}, {kGoal}, {5}).average_map, 3.0 / 11, 1e-12);
}
