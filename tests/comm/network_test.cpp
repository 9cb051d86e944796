// Tests of bandwidth parsing and the analytic bounds.
#include <gtest/gtest.h>

#include "comm/network.h"
#include "core/error.h"

using namespace dmlkit;
using namespace dmlkit::comm;

TEST(CommNetwork, ParsesBandwidthUnits) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("10Gbps", "bandwidth"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100 Gbps", "bandwidth"), 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("800Mbps", "bandwidth"), 1e8);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.25GBps", "bandwidth"), 1.25e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("25Gbit/s", "bandwidth"), 25e9 / 8);
}

TEST(CommNetwork, BadBandwidthIsAnError) {
  for (const char* s : {"0Gbps", "fast", "10", "10Gbq", "-1Gbps", ""}) {
    try {
      parse_bandwidth(s, "bandwidth");
      FAIL() << s;
    } catch (const Error& e) {
      EXPECT_EQ(e.field(), "bandwidth") << s;
    }
  }
}

TEST(CommNetwork, LowerBounds) {
  auto w = make_chain_workload("t", {{0.01, 0.02, 100e6}});
  NetworkConfig net;
  net.arch = Arch::allreduce;
  net.workers = 4;
  net.bandwidth_Bps = 1e9;
  EXPECT_NEAR(comm_bound_s(w, net), 2.0 * 3 / 4 * 0.1, 1e-12);
  EXPECT_NEAR(lower_bound_s(w, net), 0.15, 1e-12);
  net.arch = Arch::ps;
  net.servers = 2;
  EXPECT_NEAR(comm_bound_s(w, net), 0.1 * 2, 1e-12);
  net.servers = 8;
  EXPECT_NEAR(comm_bound_s(w, net), 0.1, 1e-12);
  net.bandwidth_Bps = 0;
  EXPECT_THROW(net.validate(), Error);
}
