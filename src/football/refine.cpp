// Refinement of text segments by an event stream (refine.h).
#include "football/refine.h"

#include <algorithm>
#include <cmath>

namespace dmlkit::football {

EventStreamRefiner::EventStreamRefiner(const EventStream& stream, const VideoClock& clock, double min_confidence) {
  for (const auto& e : stream.events) {
    if (e.label < 0 || e.confidence < min_confidence) continue;
    if (e.period < 1 || e.period > static_cast<int>(clock.kickoff_s.size())) continue;
    spots_.push_back({e.label, {clock.video_s(e.period, e.t_s), e.confidence}});
  }
  std::stable_sort(spots_.begin(), spots_.end(),
                   [](const auto& a, const auto& b) { return a.second.video_s < b.second.video_s; });
}

std::vector<Spot> EventStreamRefiner::spot(double from_s, double to_s, int label) const {
  std::vector<Spot> out;
  auto it = std::lower_bound(spots_.begin(), spots_.end(), from_s,
                             [](const auto& s, double t) { return s.second.video_s < t; });
  for (; it != spots_.end() && it->second.video_s <= to_s; ++it)
    if (it->first == label) out.push_back(it->second);
  return out;
}

RefineStats refine_segments(std::vector<Segment>& segments, const Refiner& refiner, double search_s) {
  RefineStats st;
  double shift_sum = 0;
  for (auto& s : segments) {
    ++st.segments;
    const auto spots = refiner.spot(s.start_s - search_s, s.end_s + search_s, s.label);
    if (spots.empty()) continue;
    const Spot* best = &spots.front();
    for (const auto& sp : spots)
      if (sp.confidence > best->confidence ||
          (sp.confidence == best->confidence && std::abs(sp.video_s - s.spot_s) < std::abs(best->video_s - s.spot_s)))
        best = &sp;
    const double shift = best->video_s - s.spot_s;
    s.spot_s += shift;
    s.start_s += shift;
    s.end_s += shift;
    s.confidence = best->confidence;
    s.refined = true;
    ++st.refined;
    shift_sum += std::abs(shift);
  }
  st.mean_shift_s = st.refined > 0 ? shift_sum / st.refined : 0;
  return st;
}

}  // namespace dmlkit::football
