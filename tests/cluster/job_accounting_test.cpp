// The bookkeeping policies read (cluster/sim/job_accounting.h), shared by the simulator and the
// live controller: arrival, service credited while holding GPUs, starts and stops.
#include "cluster/sim/job_accounting.h"

#include <gtest/gtest.h>

namespace dmlkit::cluster {
namespace {

TEST(JobAccount, FollowsAJobsHistory) {
  JobAccount a = JobAccount::arrived_at(5);
  EXPECT_EQ(a.last_stopped_s, 5);
  EXPECT_EQ(a.queued_since_s, 5);
  a.started();
  a.credit(10, 4);
  a.stopped(20);
  a.started();
  a.credit(2.5, 2);
  EXPECT_EQ(a.executed_s, 12.5);
  EXPECT_EQ(a.attained_gpu_s, 45);
  EXPECT_EQ(a.restarts, 2);
  EXPECT_EQ(a.preemptions, 1);
  EXPECT_EQ(a.last_stopped_s, 20);
  EXPECT_EQ(a.queued_since_s, 20);

  JobView v;
  v.placement = {{0, 2}};
  a.fill(v);
  EXPECT_EQ(v.attained_gpu_s, 45);
  EXPECT_EQ(v.executed_s, 12.5);
  EXPECT_EQ(v.last_stopped_s, 20);
  EXPECT_EQ(v.queued_since_s, 20);
  EXPECT_EQ(v.preemptions, 1);
  EXPECT_EQ(v.restarts, 2);
  EXPECT_EQ(v.placement.size(), 1u) << "placement is the caller's";

  a.credit(1, 2);
  JobView w;
  a.fill_service(w);
  EXPECT_EQ(w.attained_gpu_s, 47);
  EXPECT_EQ(w.executed_s, 13.5);
  EXPECT_EQ(w.preemptions, 0) << "fill_service writes only what changes while running";
}

}  // namespace
}  // namespace dmlkit::cluster
