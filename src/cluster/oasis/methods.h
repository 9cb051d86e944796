// The registry entries of the OASiS-model methods (one function per method, defined in its file;
// listed in method.cpp).
#pragma once
#include "cluster/oasis/method.h"

namespace dmlkit::cluster::oasis {

OasisMethodEntry oasis_entry();   // oasis.cpp
OasisMethodEntry fifo_entry();    // fifo.cpp
OasisMethodEntry drf_entry();     // drf.cpp
OasisMethodEntry rrh_entry();     // rrh.cpp
OasisMethodEntry dorm_entry();    // dorm.cpp
OasisMethodEntry tetris_entry();  // tetris.cpp

}  // namespace dmlkit::cluster::oasis
