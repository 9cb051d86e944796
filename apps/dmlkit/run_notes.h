// One-line notes after a run's summary (issue 20): when a result sits at a bound, or defaults are
// far from tuned, say so and what to run instead. On stdout with --format table, on stderr
// otherwise (so json/csv output stays machine-readable); each starts with "note: ".
#pragma once
#include <ostream>
#include <string>

#include "dmlkit/commands.h"

namespace dmlkit::app {

inline void print_note(Context& ctx, const std::string& format, const std::string& text) {
  (format == "table" ? ctx.out : ctx.err) << "note: " << text << "\n";
}

}  // namespace dmlkit::app
