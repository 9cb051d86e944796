// Entries of the GNN placement policies (one file each in this folder), listed in ../registry.cpp.
#pragma once
#include "gnn/placement.h"

namespace dmlkit::gnn {
PlacementEntry colocate_entry();
PlacementEntry random_entry();
PlacementEntry greedy_entry();
PlacementEntry explore_entry();
}  // namespace dmlkit::gnn
