// The refinement stage (specs D.3 step 5): given a window of the video and a label, a Refiner
// returns the spotted times of that label in the window with confidences; refine_segments moves
// each text segment onto the best spot. One implementation ships: EventStreamRefiner, which spots
// from a timed event stream -- official event data (IDSSE XML, Wyscout JSON) or a SoccerNet-format
// prediction file that any video action-spotting model writes (NetVLAD++, CALF, E2E-Spot write
// results_spotting.json). No football video or trained video model can be had offline, so none
// ships and none is imitated: a video model plugs in by writing its predictions in SoccerNet's
// format (docs/football.md, "Plugging in a video model").
#pragma once
#include <string>
#include <vector>

#include "football/event_stream.h"
#include "football/units.h"

namespace dmlkit::football {

struct Spot {
  double video_s = 0;
  double confidence = 0;
};

class Refiner {
 public:
  virtual ~Refiner() = default;
  // Spots of `label` with from_s <= video_s <= to_s, in time order.
  virtual std::vector<Spot> spot(double from_s, double to_s, int label) const = 0;
};

// Spots from an event stream placed on the video by `clock` (its kick-offs; no lag: the stream's
// times are game times, not live text). Events below min_confidence are ignored.
class EventStreamRefiner final : public Refiner {
 public:
  EventStreamRefiner(const EventStream& stream, const VideoClock& clock, double min_confidence = 0);
  std::vector<Spot> spot(double from_s, double to_s, int label) const override;
  size_t size() const { return spots_.size(); }

 private:
  std::vector<std::pair<int, Spot>> spots_;  // (label, spot), by time
};

struct RefineStats {
  int segments = 0;
  int refined = 0;        // moved onto a spot
  double mean_shift_s = 0;  // mean |shift| of the refined ones
};

// For each segment, looks for spots of its label in [start_s - search_s, end_s + search_s]; the
// highest-confidence one (ties: the closest to the segment's spot) becomes the new spot and the
// segment is shifted by (new spot - old spot), keeping its length. Segments without a spot stay.
RefineStats refine_segments(std::vector<Segment>& segments, const Refiner& refiner, double search_s);

}  // namespace dmlkit::football
