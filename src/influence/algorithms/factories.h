// The registry entries of the built-in influence algorithms (one file each under algorithms/, the
// entry next to the algorithm: name, summary, factory, the knobs it reads).
#pragma once
#include "core/knobs.h"
#include "influence/algorithm.h"

namespace dmlkit::influence {

AlgorithmEntry rsb_entry();
AlgorithmEntry random_entry();
AlgorithmEntry static_greedy_entry();
AlgorithmEntry cucb_entry();
AlgorithmEntry epsilon_greedy_entry();
AlgorithmEntry oracle_entry();

// imm.max-rr-sets: the memory cap on IMM's reverse-reachable sets, a knob of every algorithm that
// runs IMM (static-greedy, oracle).
KnobSpec imm_max_rr_sets_knob();

}  // namespace dmlkit::influence
