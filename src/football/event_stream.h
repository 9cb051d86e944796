// Timed event streams: ground truth and detector output the refinement stage (refine.h) and the
// spotting metric (spotting_map.h) read. Formats:
// - IDSSE / DFL "Sportec" event XML (<Event EventTime=...><ShotAtGoal>...), wall-clock times,
//   periods from its KickOff events;
// - Wyscout public event JSON ({"events": [{eventName, subEventName, tags, matchPeriod,
//   eventSec}]});
// - SoccerNet Labels-v2.json ({"annotations": [{gameTime "1 - 12:34", label, position ms,
//   visibility}]}) and SoccerNet prediction files ({"predictions": [{half, position ms, label,
//   confidence}]}) as any SoccerNet action-spotting model writes them;
// - the appsync feed itself (its typed events, lines.h).
// Every event gets a coarse label (labels.h); events with no counterpart there are "other".
#pragma once
#include <string>
#include <vector>

#include "football/lines.h"

namespace dmlkit::football {

struct EventStream {
  std::string path;
  std::string format;  // idsse, wyscout, soccernet-labels, soccernet-predictions, feed
  std::vector<TimedEvent> events;
};

EventStream read_idsse_xml(const std::string& path);
EventStream read_wyscout_json(const std::string& path);
EventStream read_soccernet_json(const std::string& path);  // labels or predictions
// By format name, or "auto": .xml -> idsse; JSON with "annotations"/"predictions" -> SoccerNet;
// with "events" -> Wyscout; an array -> the appsync feed.
EventStream read_event_stream(const std::string& path, const std::string& format = "auto");

// A SoccerNet prediction file (results_spotting.json layout) of these events: label by
// coarse_to_soccernet (events of "other" are left out), gameTime "H - mm:ss", position in ms.
std::string soccernet_predictions_json(const std::vector<TimedEvent>& events, const std::string& game);

}  // namespace dmlkit::football
