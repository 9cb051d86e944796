// Registry entries of the assignment policies (one file each under policies/).
#pragma once
#include "ps/policy.h"

namespace dmlkit::ps {

AssignmentEntry mxnet_entry();
AssignmentEntry round_robin_entry();
AssignmentEntry random_entry();
AssignmentEntry byteps_entry();
AssignmentEntry paa_entry();
AssignmentEntry psld_entry();

}  // namespace dmlkit::ps
