// Loading and querying the measured application profiles; see app_profile.h and
// docs/cluster-speed-models.md.
#include "cluster/speed/app_profile.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>

#include "core/data_dir.h"
#include "cluster/speed/linear_nd_interpolator.h"
#include "core/csv.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

// The constants applications.py passes to each Application; 0 = "derive from the data".
struct AppConstants {
  const char* name;
  int max_epochs;
  int max_local_bsz;     // yolov3 only
  int max_replicas_cap;  // ncf: the reference schedules it on one GPU only
};
constexpr AppConstants kApps[] = {
    {"bert", 2, 0, 0},      {"cifar10", 100, 0, 0}, {"deepspeech2", 80, 0, 0},
    {"imagenet", 90, 0, 0}, {"ncf", 10, 0, 1},      {"yolov3", 50, 8, 0},
};

const AppConstants* find_app(const std::string& name) {
  for (const auto& a : kApps)
    if (name == a.name) return &a;
  return nullptr;
}

std::string placement_text(std::span<const int> p) {
  std::string s = "(";
  for (size_t i = 0; i < p.size(); ++i) s += (i ? "," : "") + std::to_string(p[i]);
  return s + ")";
}

std::string num_text(double v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// Python's math.ceil(x - 1e-8) on a float, as an int.
int ceil_eps(double x) { return static_cast<int>(std::ceil(x - 1e-8)); }

}  // namespace

const std::vector<std::string>& AppProfile::known_applications() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& a : kApps) v.emplace_back(a.name);
    return v;
  }();
  return names;
}

bool AppProfile::is_known(const std::string& name) { return find_app(name) != nullptr; }

std::string AppProfile::known_list() {
  std::string s;
  for (const auto& n : known_applications()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

const AppProfile& AppProfile::get(const std::string& name, const std::string& data_dir) {
  // Simulations running in parallel threads share this cache: lookups and loads are serialised
  // (a load takes milliseconds, once per application and data folder); the profiles themselves are
  // heap objects that never move, so references stay valid after the lock is released.
  static std::mutex mutex;
  static std::map<std::pair<std::string, std::string>, std::unique_ptr<AppProfile>> cache;
  const std::string root = data_dir.empty() ? default_data_dir() : data_dir;
  auto key = std::make_pair(root, name);
  const std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it != cache.end()) return *it->second;
  if (!is_known(name)) throw Error("unknown application '" + name + "' (known: " + known_list() + ")");
  auto profile = std::make_unique<AppProfile>(name, (std::filesystem::path(root) / "app-profiles" / name).string());
  return *cache.emplace(key, std::move(profile)).first->second;
}

std::string AppProfile::placement_id(std::span<const int> gpus_per_node) {
  std::vector<int> p;
  for (int g : gpus_per_node)
    if (g != 0) p.push_back(g);
  std::vector<int> best = p, rot(p.size());
  for (size_t i = 1; i < p.size(); ++i) {
    for (size_t k = 0; k < p.size(); ++k) rot[k] = p[(i + k) % p.size()];
    if (rot < best) best = rot;
  }
  std::string id;
  for (int g : best) id += std::to_string(g);
  return id;
}

std::vector<int> AppProfile::packed_placement(int replicas, int per_node) {
  std::vector<int> p;
  for (int left = replicas; left > 0; left -= per_node) p.push_back(std::min(left, per_node));
  return p;
}

AppProfile::AppProfile(const std::string& name, const std::string& dir) : name_(name), dir_(dir) {
  const AppConstants* c = find_app(name);
  if (c == nullptr) throw Error("unknown application '" + name + "' (known: " + known_list() + ")");
  max_replicas_cap_ = c->max_replicas_cap;
  load(dir);
  // Constants: the ones applications.py gives, else derived from the data as it does.
  init_batch_size_ = batch_sizes_.front();
  max_batch_size_ = batch_sizes_.back();
  if (c->max_local_bsz > 0) max_local_bsz_ = c->max_local_bsz;
  size_t min_rows = validation_.front().progress.size();
  for (const auto& v : validation_) min_rows = std::min(min_rows, v.progress.size());
  max_epochs_ = c->max_epochs > 0 ? c->max_epochs : static_cast<int>(min_rows);
  if (static_cast<size_t>(max_epochs_) > min_rows) {
    throw Error(dir + "/validation-" + std::to_string(batch_sizes_.front()) + ".csv", 0, "progress",
                name + " trains " + std::to_string(max_epochs_) + " epochs but a validation curve has only " +
                    std::to_string(min_rows) + " rows");
  }
  if (max_batch_size_ < min_local_bsz_) {
    throw Error(dir + "/placements.csv", 0, "local_bsz",
                "largest validated batch size is below the smallest local batch size");
  }
  epoch_progress_.assign(min_rows + 1, 0.0);
  for (size_t e = 1; e <= min_rows; ++e) {
    double m = std::numeric_limits<double>::infinity();
    for (const auto& v : validation_) m = std::min(m, v.progress[e - 1]);
    epoch_progress_[e] = m;
  }
}

AppProfile::~AppProfile() = default;

void AppProfile::load(const std::string& dir) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(dir)) throw Error(dir, 0, "", "application profile folder not found");

  // placements.csv: placement,local_bsz,step_time,sync_time
  const CsvTable pl = CsvTable::read(dir + "/placements.csv");
  const int c_pl = pl.column("placement"), c_bsz = pl.column("local_bsz");
  const int c_step = pl.column("step_time"), c_sync = pl.column("sync_time");
  // Per-key sums for the LinearNDInterpolator data, keyed like the reference's groupby (sorted).
  std::map<std::tuple<int, int, double>, std::tuple<double, double, int>> groups;
  std::map<std::string, std::vector<std::tuple<double, double, double>>> raw;
  min_local_bsz_ = std::numeric_limits<int>::max();
  max_local_bsz_ = 0;
  for (size_t r = 0; r < pl.rows(); ++r) {
    const long id = pl.integer(r, c_pl);
    if (id <= 0) pl.fail(r, c_pl, "placement must be a positive digit string such as 1144");
    const std::string key = std::to_string(id);
    if (key.find('0') != std::string::npos) pl.fail(r, c_pl, "placement digits must be 1-9");
    const double bsz = pl.num(r, c_bsz), step = pl.num(r, c_step), sync = pl.num(r, c_sync);
    if (bsz < 1 || bsz != std::floor(bsz)) pl.fail(r, c_bsz, "local batch size must be a positive integer");
    if (step <= 0) pl.fail(r, c_step, "step time must be positive");
    if (sync < 0 || sync > step) pl.fail(r, c_sync, "sync time must be in [0, step_time]");
    for (const auto& [b, s, y] : raw[key])
      if (b == bsz) pl.fail(r, c_bsz, "duplicate local batch size for placement " + key);
    raw[key].emplace_back(bsz, step, sync);
    min_local_bsz_ = std::min(min_local_bsz_, static_cast<int>(bsz));
    max_local_bsz_ = std::max(max_local_bsz_, static_cast<int>(bsz));
    int nodes = static_cast<int>(key.size()), replicas = 0;
    for (char ch : key) replicas += ch - '0';
    auto& g = groups[{nodes, replicas, bsz}];
    std::get<0>(g) += step;
    std::get<1>(g) += sync;
    std::get<2>(g) += 1;
  }
  if (raw.empty()) throw Error(dir + "/placements.csv", 0, "", "no measurements");
  for (auto& [key, pts] : raw) {
    if (pts.size() < 2) {
      throw Error(dir + "/placements.csv", 0, "local_bsz", "placement " + key + " needs at least two batch sizes");
    }
    std::stable_sort(pts.begin(), pts.end(),
                     [](const auto& a, const auto& b) { return std::get<0>(a) < std::get<0>(b); });
    Curve& cv = curves_[key];
    for (const auto& [b, s, y] : pts) {
      cv.local_bsz.push_back(b);
      cv.step_s.push_back(s);
      cv.sync_s.push_back(y);
    }
  }
  for (const auto& [k, sums] : groups) {
    const auto& [nodes, replicas, bsz] = k;
    const int n = std::get<2>(sums);
    nd_points_.insert(nd_points_.end(), {double(nodes), double(replicas), bsz});
    nd_values_.insert(nd_values_.end(), {std::get<0>(sums) / n, std::get<1>(sums) / n});
  }

  // scalability.csv: num_nodes,num_replicas,local_bsz,step_time,sync_time (appended in file order)
  const CsvTable sc = CsvTable::read(dir + "/scalability.csv");
  const int s_nodes = sc.column("num_nodes"), s_rep = sc.column("num_replicas"), s_bsz = sc.column("local_bsz");
  const int s_step = sc.column("step_time"), s_sync = sc.column("sync_time");
  for (size_t r = 0; r < sc.rows(); ++r) {
    const double nodes = sc.num(r, s_nodes), rep = sc.num(r, s_rep), bsz = sc.num(r, s_bsz);
    const double step = sc.num(r, s_step), sync = sc.num(r, s_sync);
    if (nodes < 1) sc.fail(r, s_nodes, "must be at least 1");
    if (rep < nodes) sc.fail(r, s_rep, "must be at least num_nodes");
    if (bsz < 1) sc.fail(r, s_bsz, "must be at least 1");
    if (step <= 0) sc.fail(r, s_step, "step time must be positive");
    if (sync < 0 || sync > step) sc.fail(r, s_sync, "sync time must be in [0, step_time]");
    nd_points_.insert(nd_points_.end(), {nodes, rep, bsz});
    nd_values_.insert(nd_values_.end(), {step, sync});
  }
  nd_min_bsz_ = std::numeric_limits<double>::infinity();
  nd_max_bsz_ = -nd_min_bsz_;
  for (size_t i = 2; i < nd_points_.size(); i += 3) {
    nd_min_bsz_ = std::min(nd_min_bsz_, nd_points_[i]);
    nd_max_bsz_ = std::max(nd_max_bsz_, nd_points_[i]);
    max_measured_replicas_ = std::max(max_measured_replicas_, static_cast<int>(nd_points_[i - 1]));
  }

  // validation-<batch size>.csv: progress,iteration,metric,grad_sqr,grad_var
  std::vector<std::pair<int, std::string>> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string fname = entry.path().filename().string();
    if (fname.rfind("validation-", 0) != 0 || entry.path().extension() != ".csv") continue;
    const std::string num = fname.substr(11, fname.size() - 11 - 4);
    long bsz = 0;
    if (!parse_long(num, bsz) || bsz <= 0) {
      throw Error(entry.path().string(), 0, "", "file name must be validation-<batch size>.csv");
    }
    files.emplace_back(static_cast<int>(bsz), entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw Error(dir, 0, "", "no validation-<batch size>.csv files");
  for (const auto& [bsz, path] : files) {
    const CsvTable v = CsvTable::read(path);
    const int c_prog = v.column("progress"), c_it = v.column("iteration");
    const int c_sqr = v.column("grad_sqr"), c_var = v.column("grad_var");
    if (v.rows() == 0) throw Error(path, 0, "", "no epochs");
    Validation val;
    for (size_t r = 0; r < v.rows(); ++r) {
      val.progress.push_back(v.num(r, c_prog));
      val.iteration.push_back(v.num(r, c_it));
      val.grad_sqr.push_back(v.num(r, c_sqr));
      val.grad_var.push_back(v.num(r, c_var));
      if (r > 0 && val.progress[r] < val.progress[r - 1]) v.fail(r, c_prog, "progress must not decrease");
      if (val.grad_sqr[r] < 0) v.fail(r, c_sqr, "must not be negative");
      if (val.grad_var[r] < 0) v.fail(r, c_var, "must not be negative");
    }
    batch_sizes_.push_back(bsz);
    validation_.push_back(std::move(val));
  }
}

int AppProfile::max_replicas(int batch_size) const {
  if (max_replicas_cap_ > 0) return max_replicas_cap_;
  return std::max(1, batch_size / min_local_bsz_);
}

BatchConfig AppProfile::batch_config(int batch_size, int replicas, SingleReplicaAccumulation rule) const {
  BatchConfig bc;
  if (replicas <= 0) return bc;
  const int local = ceil_eps(static_cast<double>(batch_size) / replicas);
  bc.accum_steps = ceil_eps(static_cast<double>(local) / max_local_bsz_) - 1;
  if (replicas == 1 && (rule == SingleReplicaAccumulation::Always || batch_size > init_batch_size_)) {
    bc.accum_steps = std::max(1, bc.accum_steps);
  }
  bc.atomic_bsz = ceil_eps(static_cast<double>(local) / (bc.accum_steps + 1));
  const long count = static_cast<long>(replicas) * (bc.accum_steps + 1);
  bc.atomic_bsz = std::min<long>(bc.atomic_bsz, static_cast<long>(static_cast<double>(max_batch_size_) / count));
  return bc;
}

const LinearNDInterpolator& AppProfile::nd() const {
  std::call_once(nd_once_, [this] { nd_ = std::make_unique<LinearNDInterpolator>(3, nd_points_, 2, nd_values_); });
  return *nd_;
}

std::optional<StepSyncTime> AppProfile::lookup(std::span<const int> gpus_per_node, double atomic_bsz, bool clamp,
                                               std::string* why) const {
  const std::string id = placement_id(gpus_per_node);
  if (id.empty()) {
    if (why) *why = "empty placement";
    return std::nullopt;
  }
  auto it = curves_.find(id);
  if (it != curves_.end()) {
    // scipy interp1d (linear, bounds_error): segment found by searchsorted(side="left") clipped
    // to [1, n-1]; y = slope * (x - x_lo) + y_lo.
    const Curve& cv = it->second;
    const size_t n = cv.local_bsz.size();
    double x = atomic_bsz;
    if (clamp) x = std::clamp(x, cv.local_bsz.front(), cv.local_bsz.back());
    if (!(x >= cv.local_bsz.front() && x <= cv.local_bsz.back())) {
      if (why) {
        *why = "local batch size " + num_text(atomic_bsz) + " is outside the measured range [" +
               num_text(cv.local_bsz.front()) + ", " + num_text(cv.local_bsz.back()) + "] of placement " + id;
      }
      return std::nullopt;
    }
    size_t hi = std::lower_bound(cv.local_bsz.begin(), cv.local_bsz.end(), x) - cv.local_bsz.begin();
    hi = std::clamp<size_t>(hi, 1, n - 1);
    const size_t lo = hi - 1;
    const double dx = cv.local_bsz[hi] - cv.local_bsz[lo];
    const double ds = (cv.step_s[hi] - cv.step_s[lo]) / dx;
    const double dy = (cv.sync_s[hi] - cv.sync_s[lo]) / dx;
    return StepSyncTime{ds * (x - cv.local_bsz[lo]) + cv.step_s[lo], dy * (x - cv.local_bsz[lo]) + cv.sync_s[lo]};
  }
  int nodes = 0, replicas = 0;
  for (int g : gpus_per_node) {
    if (g != 0) {
      ++nodes;
      replicas += g;
    }
  }
  double q[3] = {static_cast<double>(std::min(nodes, 16)), static_cast<double>(replicas), atomic_bsz};
  if (clamp) q[2] = std::clamp(q[2], nd_min_bsz_, nd_max_bsz_);
  double out[2];
  if (!nd().evaluate(q, out)) {
    if (why) {
      *why = "(num_nodes=" + num_text(q[0]) + ", num_replicas=" + num_text(q[1]) + ", local_bsz=" + num_text(q[2]) +
             ") is outside the convex hull of the measured configurations";
    }
    return std::nullopt;
  }
  return StepSyncTime{out[0], out[1]};
}

StepSyncTime AppProfile::step_sync_time(std::span<const int> gpus_per_node, double atomic_bsz) const {
  std::string why;
  auto r = lookup(gpus_per_node, atomic_bsz, false, &why);
  if (!r) {
    throw Error(name_ + ": no step time for placement " + placement_text(gpus_per_node) + " at local batch size " +
                num_text(atomic_bsz) + ": " + why);
  }
  return *r;
}

std::optional<StepSyncTime> AppProfile::try_step_sync_time(std::span<const int> gpus_per_node, double atomic_bsz,
                                                           bool clamp) const {
  return lookup(gpus_per_node, atomic_bsz, clamp, nullptr);
}

void AppProfile::bracket(double batch_size, size_t& lo, size_t& hi) const {
  if (!(batch_size >= batch_sizes_.front() && batch_size <= batch_sizes_.back())) {
    throw Error(name_ + ": batch size " + num_text(batch_size) + " is outside the validated range [" +
                std::to_string(batch_sizes_.front()) + ", " + std::to_string(batch_sizes_.back()) + "]");
  }
  lo = 0;
  hi = batch_sizes_.size() - 1;
  for (size_t i = 0; i < batch_sizes_.size(); ++i) {
    if (batch_sizes_[i] <= batch_size) lo = i;
    if (batch_sizes_[i] >= batch_size) {
      hi = i;
      break;
    }
  }
}

GradStats AppProfile::grad_stats(double batch_size, int epoch) const {
  size_t lo = 0, hi = 0;
  bracket(batch_size, lo, hi);
  const Validation& a = validation_[lo];
  const Validation& b = validation_[hi];
  if (epoch < 0 || static_cast<size_t>(epoch) >= a.grad_sqr.size() || static_cast<size_t>(epoch) >= b.grad_sqr.size()) {
    throw Error(name_ + ": no gradient statistics for epoch " + std::to_string(epoch));
  }
  if (lo == hi) return GradStats{a.grad_sqr[epoch], a.grad_var[epoch]};
  const double blo = batch_sizes_[lo], bhi = batch_sizes_[hi];
  GradStats g;
  g.sqr = ((batch_size - blo) * b.grad_sqr[epoch] + (bhi - batch_size) * a.grad_sqr[epoch]) / (bhi - blo);
  g.var = ((batch_size - blo) * b.grad_var[epoch] + (bhi - batch_size) * a.grad_var[epoch]) / (bhi - blo);
  return g;
}

double AppProfile::progress_at_epoch(int epoch) const {
  if (epoch < 0 || static_cast<size_t>(epoch) >= epoch_progress_.size()) {
    throw Error(name_ + ": no progress figure for epoch " + std::to_string(epoch));
  }
  return epoch_progress_[epoch];
}

double AppProfile::iteration_at(double batch_size, int epoch) const {
  size_t lo = 0, hi = 0;
  bracket(batch_size, lo, hi);
  const Validation& a = validation_[lo];
  const Validation& b = validation_[hi];
  if (epoch < 0 || static_cast<size_t>(epoch) >= a.iteration.size() ||
      static_cast<size_t>(epoch) >= b.iteration.size()) {
    throw Error(name_ + ": no iteration count for epoch " + std::to_string(epoch));
  }
  if (lo == hi) return a.iteration[epoch];
  const double blo = batch_sizes_[lo], bhi = batch_sizes_[hi];
  return ((batch_size - blo) * b.iteration[epoch] + (bhi - batch_size) * a.iteration[epoch]) / (bhi - blo);
}

double AppProfile::oracle_remaining_iterations(double batch_size, int epoch) const {
  const int last = completion_epoch();
  if (last <= epoch) return 1.0;
  return iteration_at(batch_size, last) - iteration_at(batch_size, epoch);
}

double AppProfile::packed_step_time_s(int batch_size, int replicas) const {
  if (replicas <= 0) return std::numeric_limits<double>::infinity();
  const long long key = (static_cast<long long>(batch_size) << 24) | static_cast<long long>(replicas);
  {
    const std::shared_lock<std::shared_mutex> read(packed_mutex_);
    auto it = packed_cache_.find(key);
    if (it != packed_cache_.end()) return it->second;
  }
  const BatchConfig bc = batch_config(batch_size, replicas, SingleReplicaAccumulation::Always);
  const std::vector<int> placement = packed_placement(replicas);
  double t = std::numeric_limits<double>::infinity();
  if (auto st = lookup(placement, bc.atomic_bsz, false, nullptr)) {
    t = st->step_s + (st->step_s - st->sync_s) * bc.accum_steps;
  }
  const std::unique_lock<std::shared_mutex> write(packed_mutex_);
  packed_cache_.emplace(key, t);  // another thread may have put the same value first
  return t;
}

}  // namespace dmlkit::cluster
