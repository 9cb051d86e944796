// Network configuration, bandwidth parsing and the analytic bounds (see network.h).
#include "comm/network.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "core/csv.h"
#include "core/error.h"

namespace dmlkit::comm {

std::string to_string(Arch a) { return a == Arch::ps ? "ps" : "allreduce"; }

Arch parse_arch(const std::string& s) {
  if (s == "ps") return Arch::ps;
  if (s == "allreduce") return Arch::allreduce;
  throw Error("", 0, "arch", "unknown architecture '" + s + "' (ps or allreduce)");
}

void NetworkConfig::validate() const {
  if (workers < 1 || workers > 4096) throw Error("", 0, "workers", "must be between 1 and 4096");
  if (arch == Arch::ps && (servers < 1 || servers > 4096)) throw Error("", 0, "servers", "must be between 1 and 4096");
  // Every worker has a route to every server (two per pair); keep the platform a sane size.
  if (arch == Arch::ps && static_cast<long>(workers) * servers > 65536)
    throw Error("", 0, "servers", "workers x servers must be at most 65536");
  if (!(bandwidth_Bps > 0) || !std::isfinite(bandwidth_Bps)) throw Error("", 0, "bandwidth", "must be > 0");
  if (!(latency_s >= 0) || !std::isfinite(latency_s)) throw Error("", 0, "latency", "must be >= 0");
  if (!(switch_bandwidth_Bps >= 0) || !std::isfinite(switch_bandwidth_Bps))
    throw Error("", 0, "switch_bandwidth", "must be >= 0");
  if (racks < 1 || racks > workers + (arch == Arch::ps ? servers : 0))
    throw Error("", 0, "racks", "must be between 1 and the number of hosts");
  if (!(uplink_bandwidth_Bps >= 0) || !std::isfinite(uplink_bandwidth_Bps))
    throw Error("", 0, "uplink_bandwidth", "must be >= 0");
  if (!(op_overhead_s >= 0) || !std::isfinite(op_overhead_s)) throw Error("", 0, "op_overhead", "must be >= 0");
  if (!(big_array_bytes > 0)) throw Error("", 0, "big_array_bytes", "must be > 0");
  for (const auto& [w, f] : slow_links) {
    if (w < 0 || w >= workers)
      throw Error("", 0, "slow_link", "worker " + std::to_string(w) + " does not exist (workers 0-" +
                                          std::to_string(workers - 1) + ")");
    if (!(f > 0 && f <= 1)) throw Error("", 0, "slow_link", "the bandwidth fraction must be in (0, 1]");
  }
}

double NetworkConfig::slowest_link_scale() const {
  double f = 1;
  for (const auto& [w, s] : slow_links) f = std::min(f, s);
  return f;
}

double NetworkConfig::link_scale(int worker) const {
  double f = 1;
  for (const auto& [w, s] : slow_links)
    if (w == worker) f = std::min(f, s);
  return f;
}

double parse_bandwidth(const std::string& text, const std::string& field) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == 'e' ||
                             text[i] == 'E' || text[i] == '+' || text[i] == '-'))
    ++i;
  // "e" may start a unit only in "e.g."; units here never start with e, so this is safe.
  double value = 0;
  if (!parse_double(std::string_view(text).substr(0, i), value))
    throw Error("", 0, field, "not a bandwidth: '" + text + "' (e.g. 10Gbps)");
  std::string unit = text.substr(i);
  std::string u;
  for (char c : unit)
    if (c != ' ') u += c;
  double mult = 1;
  size_t k = 0;
  if (!u.empty() && (u[0] == 'k' || u[0] == 'K'))
    mult = 1e3, k = 1;
  else if (!u.empty() && u[0] == 'M')
    mult = 1e6, k = 1;
  else if (!u.empty() && u[0] == 'G')
    mult = 1e9, k = 1;
  else if (!u.empty() && u[0] == 'T')
    mult = 1e12, k = 1;
  std::string rest = u.substr(k);
  double per_unit;
  if (rest == "bps" || rest == "bit/s" || rest == "b/s")
    per_unit = 1.0 / 8;
  else if (rest == "Bps" || rest == "B/s")
    per_unit = 1.0;
  else
    throw Error("", 0, field, "unknown bandwidth unit in '" + text + "' (use bps, Gbps, GBps, ...)");
  double bytes_per_s = value * mult * per_unit;
  if (!(bytes_per_s > 0) || !std::isfinite(bytes_per_s)) throw Error("", 0, field, "must be > 0: '" + text + "'");
  return bytes_per_s;
}

double sync_alpha_s(const NetworkConfig& net) {
  if (net.arch == Arch::allreduce) {
    if (net.workers <= 1) return net.op_overhead_s;
    return 2.0 * (net.workers - 1) * 2 * net.latency_s + net.op_overhead_s;
  }
  return 2 * 2 * net.latency_s + net.op_overhead_s;
}

double sync_beta_s_per_byte(const NetworkConfig& net) {
  // The slowest worker link bounds a ring step, and a worker's push and pull with a PS.
  const double bw = net.bandwidth_Bps * net.slowest_link_scale();
  if (net.arch == Arch::allreduce) {
    if (net.workers <= 1) return 0;
    return 2.0 * (net.workers - 1) / (net.workers * bw);
  }
  return std::max(2.0 * std::max(1.0, double(net.workers) / net.servers) / net.bandwidth_Bps, 2.0 / bw);
}

double comm_bound_s(const TrainingWorkload& w, const NetworkConfig& net) {
  const double s = w.total_bytes();
  const double slowest = net.slowest_link_scale();  // carries its share of every ring step, or all its bytes
  if (net.arch == Arch::allreduce)
    return net.workers <= 1 ? 0 : 2.0 * (net.workers - 1) / net.workers * s / (net.bandwidth_Bps * slowest);
  return std::max(s / net.bandwidth_Bps * std::max(1.0, double(net.workers) / net.servers),
                  s / (net.bandwidth_Bps * slowest));
}

double lower_bound_s(const TrainingWorkload& w, const NetworkConfig& net) {
  return std::max(w.compute_s(), comm_bound_s(w, net));
}

}  // namespace dmlkit::comm
