// --graph resolution: bundled names, generator specs, files.
#include "influence/graph_source.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core/suggest.h"
#include "core/data_dir.h"
#include "core/csv.h"
#include "core/error.h"
#include "core/rng.h"
#include "influence/generators.h"

namespace dmlkit::influence {
namespace {

// "nodes=1000,degree=8" -> map; throws Error naming the spec.
std::map<std::string, double> parse_params(const std::string& spec, const std::string& body) {
  std::map<std::string, double> out;
  size_t pos = 0;
  while (pos <= body.size() && !body.empty()) {
    size_t end = body.find(',', pos);
    if (end == std::string::npos) end = body.size();
    const std::string item = body.substr(pos, end - pos);
    const size_t eq = item.find('=');
    double v = 0;
    if (eq == std::string::npos || eq == 0 || !parse_double(item.substr(eq + 1), v))
      throw Error("--graph " + spec + ": expected key=number, got '" + item + "'");
    out[item.substr(0, eq)] = v;
    pos = end + 1;
  }
  return out;
}

double need(const std::map<std::string, double>& p, const std::string& key, const std::string& spec) {
  auto it = p.find(key);
  if (it == p.end()) throw Error("--graph " + spec + ": missing " + key + "=");
  return it->second;
}

uint32_t count(double v, const std::string& key, const std::string& spec) {
  if (!(v >= 1 && v <= 50'000'000 && v == std::floor(v)))
    throw Error("--graph " + spec + ": " + key + " must be a whole number in 1..50000000");
  return static_cast<uint32_t>(v);
}

void check_keys(const std::map<std::string, double>& p, std::initializer_list<const char*> keys,
                const std::string& spec) {
  for (const auto& [k, v] : p) {
    bool ok = false;
    for (const char* key : keys) ok = ok || k == key;
    if (!ok) throw Error("--graph " + spec + ": unknown parameter '" + k + "'");
  }
}

}  // namespace

std::string default_graph_data_dir() { return default_data_dir(); }

EdgeList load_graph(const std::string& spec, GraphFormat format, const std::string& data_dir, uint64_t seed,
                    uint64_t max_nodes) {
  if (spec.empty()) throw Error("--graph: empty");
  Rng rng = Rng(seed).split(0x6772617068ULL);  // "graph"
  if (spec.rfind("er:", 0) == 0) {
    const auto p = parse_params(spec, spec.substr(3));
    check_keys(p, {"nodes", "degree"}, spec);
    return erdos_renyi(count(need(p, "nodes", spec), "nodes", spec), need(p, "degree", spec), rng);
  }
  if (spec.rfind("ba:", 0) == 0) {
    const auto p = parse_params(spec, spec.substr(3));
    check_keys(p, {"nodes", "m", "reciprocal"}, spec);
    bool reciprocal = true;
    if (auto it = p.find("reciprocal"); it != p.end()) {
      if (it->second != 0 && it->second != 1) throw Error("--graph " + spec + ": reciprocal must be 0 or 1");
      reciprocal = it->second == 1;
    }
    return preferential_attachment(count(need(p, "nodes", spec), "nodes", spec), count(need(p, "m", spec), "m", spec),
                                   rng, reciprocal);
  }
  if (spec == "NetHEPT" || spec == "nethept") {
    EdgeList g = read_graph((std::filesystem::path(data_dir) / "graphs" / "NetHEPT.txt").string(), GraphFormat::Header);
    g.name = "NetHEPT";
    return g;
  }
  if (!std::filesystem::exists(spec))
    throw Error(spec, 0, "",
                "no such graph file" + did_you_mean(spec, {"NetHEPT"}) +
                    " (bundled: NetHEPT; generated: er:nodes=N,degree=D, ba:nodes=N,m=M)");
  return read_graph(spec, format, max_nodes);
}

}  // namespace dmlkit::influence
