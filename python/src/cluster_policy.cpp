// Cluster policies written in Python, through the seam every C++ policy uses (cluster/policy.h).
//
// A dmlkit.cluster.Policy subclass is registered by name (cluster::register_policy) with a factory
// that instantiates it; PythonPolicy adapts the instance to cluster::Policy. At each decision it
// calls instance.schedule(view, jobs) once (one call across the boundary per decision, plus one
// for next_wakeup_s if the class defines it), with:
//   - view: now_s, round_s, free_gpus (zero-copy, read-only NumPy view of the caller's array),
//     jobs_unchanged, same_job_list, departed, num_arrived, cluster;
//   - jobs: the active jobs in arrival order; per-job columns as NumPy arrays, the service
//     counters zero-copy (strided views into the caller's JobView array), the others gathered on
//     first access in a call; jobs[i] for one job (its oracle: remaining_time_s(gpus), ...).
// Both are valid only during the call (reading them later raises; an array taken from them must be
// copied to be kept). schedule returns None (no change), {index: placement} (only these jobs
// change: the ChangeList of policy.h, so the simulator checks and applies only them), or a list of
// one placement per job. A placement is a dmlkit.cluster.Placement or a sequence of (server, gpus)
// (or (server, gpus, workers, ps)) tuples; [] or None stops the job.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bindings.h"
#include "cluster/policy.h"
#include "core/error.h"
#include "python_error.h"

namespace dmlkit::python {

namespace cl = dmlkit::cluster;

namespace {

// Any integer sequence as a C int array (view.free_gpus passes without a copy of elements one by one).
using IntArray = py::array_t<int, py::array::c_style | py::array::forcecast>;

// What one call of schedule() lets Python see; shared by the view and jobs objects.
struct CallState {
  const cl::ClusterView* view = nullptr;
  std::span<const cl::JobView> jobs;
  std::span<const int> free;
  std::vector<int> free_storage;  // when the caller does not provide free_gpus
  bool valid = false;
  std::string owner;  // the policy's name, for messages
  // Columns that depend on placements, computed on first access in a call (cleared at every call).
  py::object running, gpus, waiting;
  void clear_cache() { running = gpus = waiting = py::object(); }
  // The jobs' own (static) fields as contiguous columns, kept across calls and updated from the
  // view's departed / num_arrived (note_list_change, ensure_columns), so that reading one is a zero-copy view, not a
  // pass over every job through its pointer at every decision.
  std::vector<int> col_id, col_num_gpus, col_batch_size;
  std::vector<double> col_arrival_s, col_duration_s;
  bool cols_valid = false;
  void push_job(const cl::Job& j) {
    col_id.push_back(j.id);
    col_num_gpus.push_back(j.num_gpus);
    col_batch_size.push_back(j.batch_size);
    col_arrival_s.push_back(j.arrival_s);
    col_duration_s.push_back(j.duration_s);
  }
  void rebuild_columns() {
    col_id.clear();
    col_num_gpus.clear();
    col_batch_size.clear();
    col_arrival_s.clear();
    col_duration_s.clear();
    for (const auto& v : jobs) push_job(*v.job);
  }
  template <class T>
  static void erase_sorted(std::vector<T>& col, const std::vector<int>& gone) {
    if (gone.empty()) return;
    // Move the blocks between the departed indices down (memmove), from the first one on.
    size_t k = static_cast<size_t>(gone[0]);
    for (size_t g = 0; g < gone.size(); ++g) {
      const size_t from = static_cast<size_t>(gone[g]) + 1;
      const size_t to = g + 1 < gone.size() ? static_cast<size_t>(gone[g + 1]) : col.size();
      if (from >= to) continue;
      std::copy(col.begin() + static_cast<std::ptrdiff_t>(from), col.begin() + static_cast<std::ptrdiff_t>(to),
                col.begin() + static_cast<std::ptrdiff_t>(k));
      k += to - from;
    }
    col.resize(k);
  }
  // The list changes since the columns were last brought up to date (one entry per call that
  // changed the list): applied when a column is read, so a call that reads none pays nothing.
  struct ListChange {
    std::vector<int> departed;            // indices in the previous list, increasing
    std::vector<const cl::Job*> arrived;  // appended after them
  };
  std::vector<ListChange> pending;
  static constexpr size_t kMaxPending = 8;  // beyond: one pass over the jobs is cheaper

  // At every call: records how the list changed (the view's departed / num_arrived), or forgets
  // the columns when the caller does not say (num_arrived < 0).
  void note_list_change(const cl::ClusterView& v, bool incremental) {
    if (!cols_valid || !incremental || v.same_job_list || v.jobs_unchanged) return;
    if (v.num_arrived < 0 || pending.size() >= kMaxPending || !std::is_sorted(v.departed.begin(), v.departed.end())) {
      cols_valid = false;
      pending.clear();
      return;
    }
    ListChange change;
    change.departed.assign(v.departed.begin(), v.departed.end());
    const auto arrived = std::min(static_cast<size_t>(v.num_arrived), jobs.size());
    for (size_t k = jobs.size() - arrived; k < jobs.size(); ++k) change.arrived.push_back(jobs[k].job);
    pending.push_back(std::move(change));
  }
  // Before a column is read: the columns of this call's list, from the pending changes or by a
  // pass over the jobs; checked against the list's size and its first and last job either way.
  void ensure_columns() {
    const size_t n = jobs.size();
    bool ok = cols_valid;
    if (ok) {
      for (const auto& change : pending) {
        if (!change.departed.empty() && static_cast<size_t>(change.departed.back()) >= col_id.size()) {
          ok = false;
          break;
        }
        erase_sorted(col_id, change.departed);
        erase_sorted(col_num_gpus, change.departed);
        erase_sorted(col_batch_size, change.departed);
        erase_sorted(col_arrival_s, change.departed);
        erase_sorted(col_duration_s, change.departed);
        for (const cl::Job* j : change.arrived) push_job(*j);
      }
    }
    pending.clear();
    if (ok && (col_id.size() != n ||
               (n > 0 && (col_id.front() != jobs.front().job->id || col_id.back() != jobs.back().job->id))))
      ok = false;
    if (!ok) rebuild_columns();
    cols_valid = true;
  }
};
using StatePtr = std::shared_ptr<CallState>;

const CallState& live(const StatePtr& s) {
  if (!s->valid)
    throw py::value_error("the view and jobs of a decision are valid only during schedule() (copy what you keep)");
  return *s;
}

struct ViewHandle {
  StatePtr s;
};
struct JobsHandle {
  StatePtr s;
};
// Walks the jobs for waiting ones on demand (Jobs.iter_waiting).
struct WaitingIter {
  StatePtr s;
  size_t i = 0;
};

struct JobHandle {
  StatePtr s;
  size_t i = 0;
  const cl::JobView& v() const {
    const CallState& c = live(s);
    if (i >= c.jobs.size()) throw py::index_error("job index out of range");
    return c.jobs[i];
  }
};

template <class T>
void make_readonly(py::array_t<T>& a) {
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
}

// A zero-copy view of one field of every JobView (strided), kept alive by `base`.
template <class T>
py::array_t<T> field_view(const CallState& c, const T cl::JobView::*field, py::handle base) {
  const size_t n = c.jobs.size();
  if (n == 0) return py::array_t<T>(0);
  const T* first = &(c.jobs[0].*field);
  py::array_t<T> a({static_cast<py::ssize_t>(n)}, {static_cast<py::ssize_t>(sizeof(cl::JobView))}, first, base);
  make_readonly(a);
  return a;
}

template <class T, class F>
py::array_t<T> gather(const CallState& c, F f) {
  py::array_t<T> a(static_cast<py::ssize_t>(c.jobs.size()));
  T* p = a.mutable_data();
  for (size_t i = 0; i < c.jobs.size(); ++i) p[i] = f(c.jobs[i]);
  make_readonly(a);
  return a;
}

// A zero-copy, read-only view of one of the columns kept across calls.
template <class T>
py::array_t<T> column_view(const std::vector<T>& col, py::handle base) {
  py::array_t<T> a(static_cast<py::ssize_t>(col.size()), col.data(), base);
  make_readonly(a);
  return a;
}

template <class T, class F>
py::object cached(py::object& slot, const CallState& c, F f) {
  if (!slot) slot = gather<T>(c, f);
  return slot;
}

cl::Placement to_placement(py::handle h, const std::string& owner) {
  if (h.is_none()) return {};
  if (py::isinstance<cl::Placement>(h)) return h.cast<const cl::Placement&>();
  cl::Placement p;
  for (py::handle item : h) {
    auto t = py::reinterpret_borrow<py::sequence>(item);
    const size_t n = py::len(t);
    if (n != 2 && n != 4)
      throw Error(owner + ".schedule: a placement slice is (server, gpus) or (server, gpus, workers, ps), got " +
                  std::string(py::repr(item)));
    cl::Slice s;
    s.server = t[0].cast<int>();
    s.gpus = t[1].cast<int>();
    if (n == 4) {
      s.workers = t[2].cast<int>();
      s.ps = t[3].cast<int>();
    }
    p.push_back(s);
  }
  return p;
}

py::object placement_object(const cl::Placement& p) { return py::cast(p); }

// CPUs (or memory) per server minus what the running parameter-server jobs' tasks hold.
py::array_t<double> free_resource(const CallState& c, bool cpus) {
  const auto& servers = c.view->cluster->servers;
  py::array_t<double> a(static_cast<py::ssize_t>(servers.size()));
  double* p = a.mutable_data();
  for (size_t s = 0; s < servers.size(); ++s) p[s] = cpus ? servers[s].cpus : servers[s].mem_gb;
  for (const auto& v : c.jobs) {
    if (!v.job->ps) continue;
    const cl::PsJobSpec& ps = *v.job->ps;
    for (const auto& sl : v.placement)
      p[sl.server] -= cpus ? sl.workers * ps.worker.cpus + sl.ps * ps.ps.cpus
                           : sl.workers * ps.worker.mem_gb + sl.ps * ps.ps.mem_gb;
  }
  return a;
}

py::dict demand_dict(const cl::TaskDemand& d) {
  py::dict out;
  out["cpus"] = d.cpus;
  out["gpus"] = d.gpus;
  out["mem_gb"] = d.mem_gb;
  out["net_gbps"] = d.net_gbps;
  return out;
}

py::list slices(const cl::Placement& p) {
  py::list out;
  for (const auto& s : p) {
    if (s.workers == 0 && s.ps == 0)
      out.append(py::make_tuple(s.server, s.gpus));
    else
      out.append(py::make_tuple(s.server, s.gpus, s.workers, s.ps));
  }
  return out;
}

class PythonPolicy final : public cl::Policy {
 public:
  PythonPolicy(py::object instance, std::string name) : instance_(std::move(instance)) {
    state_ = std::make_shared<CallState>();
    state_->owner = std::move(name);
    schedule_ = instance_.attr("schedule");
    py::object wake = instance_.attr("next_wakeup_s");
    if (!wake.is_none()) wakeup_ = wake;
    charges_restarts_ = instance_.attr("charges_restarts").cast<bool>();
    ps_jobs_ = instance_.attr("ps_jobs").cast<bool>();
    ps_assignment_ = instance_.attr("ps_assignment").cast<std::string>();
    view_obj_ = py::cast(ViewHandle{state_});
    jobs_obj_ = py::cast(JobsHandle{state_});
  }
  ~PythonPolicy() override {
    py::gil_scoped_acquire gil;
    state_->valid = false;
    state_->clear_cache();
    schedule_ = wakeup_ = view_obj_ = jobs_obj_ = instance_ = py::object();
    state_.reset();
  }

  void schedule(const cl::ClusterView& view, std::span<const cl::JobView> jobs, std::span<cl::Placement> out) override {
    py::gil_scoped_acquire gil;
    enter(view, jobs, true);
    py::object result;
    try {
      result = schedule_(view_obj_, jobs_obj_);
    } catch (py::error_already_set& e) {
      leave();
      throw python_error(e, state_->owner + ".schedule");
    }
    leave();
    apply(result, jobs.size(), out, view.changes);
  }

  double next_wakeup_s(const cl::ClusterView& view, std::span<const cl::JobView> jobs) const override {
    if (!wakeup_) return std::numeric_limits<double>::infinity();
    py::gil_scoped_acquire gil;
    auto* self = const_cast<PythonPolicy*>(this);
    self->enter(view, jobs, false);
    py::object r;
    try {
      r = wakeup_(view_obj_, jobs_obj_);
    } catch (py::error_already_set& e) {
      self->leave();
      throw python_error(e, state_->owner + ".next_wakeup_s");
    }
    self->leave();
    if (r.is_none()) return std::numeric_limits<double>::infinity();
    return r.cast<double>();
  }

  const char* ps_assignment() const override { return ps_assignment_.c_str(); }
  bool handles_ps_jobs() const override { return ps_jobs_; }
  bool charges_restarts() const override { return charges_restarts_; }
  bool user_code() const override { return true; }

 private:
  void enter(const cl::ClusterView& view, std::span<const cl::JobView> jobs, bool for_schedule) {
    CallState& c = *state_;
    c.view = &view;
    c.jobs = jobs;
    c.clear_cache();
    c.note_list_change(view, for_schedule);
    const auto& servers = view.cluster->servers;
    if (view.free_gpus.size() == servers.size()) {
      c.free = view.free_gpus;
    } else {
      c.free_storage.resize(servers.size());
      for (size_t s = 0; s < servers.size(); ++s) c.free_storage[s] = servers[s].gpus;
      for (const auto& j : jobs)
        for (const auto& sl : j.placement) c.free_storage[static_cast<size_t>(sl.server)] -= sl.gpus;
      c.free = c.free_storage;
    }
    c.valid = true;
  }
  void leave() {
    state_->valid = false;
    state_->clear_cache();
  }

  void apply(const py::object& r, size_t n, std::span<cl::Placement> out, cl::ChangeList* changes) {
    const std::string& owner = state_->owner;
    if (r.is_none()) {
      if (changes) changes->listed = true;
      return;
    }
    if (py::isinstance<py::dict>(r)) {
      if (changes) changes->listed = true;
      for (auto [key, value] : py::reinterpret_borrow<py::dict>(r)) {
        const long long i = key.cast<long long>();
        if (i < 0 || static_cast<size_t>(i) >= n)
          throw Error(owner + ".schedule: job index " + std::to_string(i) + " out of range (" + std::to_string(n) +
                      " jobs)");
        out[static_cast<size_t>(i)] = to_placement(value, owner);
        if (changes) changes->indices.push_back(static_cast<int>(i));
      }
      return;
    }
    if (py::isinstance<py::sequence>(r) && !py::isinstance<py::str>(r)) {
      auto seq = py::reinterpret_borrow<py::sequence>(r);
      if (py::len(seq) != n)
        throw Error(owner + ".schedule: returned " + std::to_string(py::len(seq)) + " placements for " +
                    std::to_string(n) + " jobs");
      for (size_t i = 0; i < n; ++i) out[i] = to_placement(seq[i], owner);
      return;
    }
    throw Error(owner + ".schedule: returned " + std::string(py::str(r.get_type().attr("__name__"))) +
                "; expected None, a dict {job index: placement} or a list of one placement per job");
  }

  py::object instance_, schedule_, wakeup_, view_obj_, jobs_obj_;
  StatePtr state_;
  bool charges_restarts_ = true;
  bool ps_jobs_ = false;
  std::string ps_assignment_ = "mxnet";
};

KnobSpec to_knob(py::handle k) {
  const std::string name = k.attr("name").cast<std::string>();
  const std::string type = k.attr("type").cast<std::string>();
  const std::string help = k.attr("help").cast<std::string>();
  py::object def = k.attr("default");
  KnobSpec spec;
  if (type == "int") {
    spec = knob_int(name, def.cast<long long>(), help);
  } else if (type == "double") {
    spec = knob_double(name, def.cast<double>(), help);
  } else if (type == "bool") {
    spec = knob_bool(name, def.cast<bool>(), help);
  } else if (type == "enum") {
    spec = knob_enum(name, def.cast<std::string>(), k.attr("choices").cast<std::vector<std::string>>(), help);
  } else {
    spec = knob_string(name, def.cast<std::string>(), help);
  }
  py::object lo = k.attr("min"), hi = k.attr("max");
  if ((type == "int" || type == "double") && (!lo.is_none() || !hi.is_none())) {
    spec.range(lo.is_none() ? -std::numeric_limits<double>::infinity() : lo.cast<double>(),
               hi.is_none() ? std::numeric_limits<double>::infinity() : hi.cast<double>());
  }
  return spec;
}

py::dict typed_knobs(const std::vector<KnobSpec>& specs, const Knobs& k) {
  py::dict d;
  for (const auto& s : specs) {
    switch (s.type) {
      case KnobType::Int:
        d[py::str(s.name)] = k.get_int(s.name);
        break;
      case KnobType::Double:
        d[py::str(s.name)] = k.get_double(s.name);
        break;
      case KnobType::Bool:
        d[py::str(s.name)] = k.get_bool(s.name);
        break;
      default:
        d[py::str(s.name)] = k.get_string(s.name);
    }
  }
  return d;
}

// What a Python policy is built with (the factory's PolicyOptions, its knobs typed).
struct PyPolicyOptions {
  std::string profile, placement;
  uint64_t seed = 1;
  py::dict knobs;
};

}  // namespace

// The registry entry of a dmlkit.cluster.Policy subclass (also used by the CLI's plugin, bridge.cpp).
cl::PolicyEntry python_policy_entry(py::handle cls) {
  const std::string name = cls.attr("name").cast<std::string>();
  const std::string summary = cls.attr("summary").cast<std::string>();
  std::vector<KnobSpec> knobs;
  for (py::handle k : cls.attr("knobs")) knobs.push_back(to_knob(k));
  const bool ps_jobs = cls.attr("ps_jobs").cast<bool>();
  // The class lives until the process ends (a registry entry may be destroyed after the interpreter).
  PyObject* raw = cls.inc_ref().ptr();
  auto factory = [raw, name, knobs](const cl::PolicyOptions& o, const Knobs& k) -> std::unique_ptr<cl::Policy> {
    py::gil_scoped_acquire gil;
    PyPolicyOptions opts{o.profile, cl::placement_kind_name(o.placement), o.seed, typed_knobs(knobs, k)};
    py::object instance;
    try {
      instance = py::handle(raw)(py::cast(std::move(opts)));
    } catch (py::error_already_set& e) {
      throw python_error(e, name + "()");
    }
    return std::make_unique<PythonPolicy>(std::move(instance), name);
  };
  cl::PolicyTraits traits;
  traits.gpu_jobs = true;
  traits.ps_jobs = ps_jobs;
  return {name, summary, factory, knobs, traits};
}

void bind_cluster(py::module_& m) {
  py::class_<cl::Placement>(m, "Placement", "Where a job's GPUs are: (server, gpus) slices, each server at most once")
      .def(py::init([](py::object slices) { return to_placement(slices, "Placement"); }), py::arg("slices"))
      .def(py::init([] { return cl::Placement{}; }))
      .def_property_readonly("gpus", [](const cl::Placement& p) { return cl::placement_gpus(p); })
      .def_property_readonly("servers",
                             [](const cl::Placement& p) {
                               std::vector<int> s;
                               for (const auto& x : p) s.push_back(x.server);
                               return s;
                             })
      .def_property_readonly("slices", &slices)
      .def("__len__", [](const cl::Placement& p) { return p.size(); })
      .def("__bool__", [](const cl::Placement& p) { return !p.empty(); })
      .def("__iter__", [](const cl::Placement& p) { return py::iter(slices(p)); })
      .def("__eq__",
           [](const cl::Placement& p, py::object other) {
             try {
               return p == to_placement(other, "Placement");
             } catch (...) {
               return false;
             }
           })
      .def("__repr__", [](const cl::Placement& p) { return "Placement(" + std::string(py::repr(slices(p))) + ")"; });

  py::class_<cl::FreeGpus>(
      m, "FreeGpus", "Free GPUs per server, and the placement choices of the C++ policies (cluster/model/placement.h)")
      .def(py::init([](const ViewHandle& view) {
             const CallState& c = live(view.s);
             return cl::FreeGpus(std::vector<int>(c.free.begin(), c.free.end()));
           }),
           py::arg("view"), "the free GPUs of a ClusterView (view.free_gpus without a NumPy array)")
      .def(py::init([](const IntArray& free) {
             return cl::FreeGpus(std::vector<int>(free.data(), free.data() + free.size()));
           }),
           py::arg("free_per_server"))
      .def("assign",
           [](cl::FreeGpus& f, const IntArray& free) { f.assign(std::span<const int>(free.data(), free.size())); })
      .def("copy", [](const cl::FreeGpus& f) { return cl::FreeGpus(f); })
      .def_property_readonly("total", &cl::FreeGpus::total)
      .def("on", &cl::FreeGpus::on, py::arg("server"))
      .def_property_readonly(
          "per_server",
          [](const cl::FreeGpus& f) { return py::array_t<int>(f.per_server().size(), f.per_server().data()); })
      .def(
          "place",
          [](cl::FreeGpus& f, int gpus, const std::string& kind) -> py::object {
            cl::Placement p;
            if (!f.place(gpus, cl::parse_placement_kind(kind), p)) return py::none();
            return placement_object(p);
          },
          py::arg("gpus"), py::arg("kind") = "consolidate",
          "Places `gpus` GPUs (consolidate, spread, first-fit, most-free) and takes them; None if they do not fit")
      .def(
          "take", [](cl::FreeGpus& f, py::object p) { f.take(to_placement(p, "FreeGpus.take")); }, py::arg("placement"))
      .def(
          "release", [](cl::FreeGpus& f, py::object p) { f.release(to_placement(p, "FreeGpus.release")); },
          py::arg("placement"));

  py::class_<PyPolicyOptions>(m, "PolicyOptions", "What a policy is created with")
      .def_readonly("profile", &PyPolicyOptions::profile, "default, pollux or tiresias-sim")
      .def_readonly("placement", &PyPolicyOptions::placement, "placement kind for FreeGpus.place")
      .def_readonly("seed", &PyPolicyOptions::seed, "the run's --seed")
      .def_readonly("knobs", &PyPolicyOptions::knobs, "declared knobs, typed, with the user's --policy-param values")
      .def("__repr__", [](const PyPolicyOptions& o) {
        return "PolicyOptions(profile='" + o.profile + "', placement='" + o.placement +
               "', seed=" + std::to_string(o.seed) + ", knobs=" + std::string(py::repr(o.knobs)) + ")";
      });

  py::class_<ViewHandle>(m, "ClusterView", "The cluster as a policy sees it (valid during schedule() only)")
      .def_property_readonly("now_s", [](const ViewHandle& h) { return live(h.s).view->now_s; })
      .def_property_readonly("round_s", [](const ViewHandle& h) { return live(h.s).view->round_s; })
      .def_property_readonly("jobs_unchanged", [](const ViewHandle& h) { return live(h.s).view->jobs_unchanged; })
      .def_property_readonly("same_job_list", [](const ViewHandle& h) { return live(h.s).view->same_job_list; })
      .def_property_readonly("num_arrived", [](const ViewHandle& h) { return live(h.s).view->num_arrived; })
      .def_property_readonly("departed",
                             [](py::object self) {
                               const CallState& c = live(self.cast<const ViewHandle&>().s);
                               py::array_t<int> a(static_cast<py::ssize_t>(c.view->departed.size()),
                                                  c.view->departed.data(), self);
                               make_readonly(a);
                               return a;
                             })
      .def_property_readonly(
          "free_gpus",
          [](py::object self) {
            const CallState& c = live(self.cast<const ViewHandle&>().s);
            py::array_t<int> a(static_cast<py::ssize_t>(c.free.size()), c.free.data(), self);
            make_readonly(a);
            return a;
          },
          "GPUs per server not held by the jobs' current placements (read-only NumPy view)")
      .def_property_readonly("gpus_per_server",
                             [](const ViewHandle& h) {
                               const auto& servers = live(h.s).view->cluster->servers;
                               py::array_t<int> a(static_cast<py::ssize_t>(servers.size()));
                               for (size_t s = 0; s < servers.size(); ++s) a.mutable_data()[s] = servers[s].gpus;
                               return a;
                             })
      .def_property_readonly(
          "free_cpus", [](const ViewHandle& h) { return free_resource(live(h.s), true); },
          "CPU cores per server not held by the running parameter-server jobs' tasks (a copy)")
      .def_property_readonly(
          "free_mem_gb", [](const ViewHandle& h) { return free_resource(live(h.s), false); },
          "memory (GB) per server not held by the running parameter-server jobs' tasks (a copy)")
      .def_property_readonly("num_servers", [](const ViewHandle& h) { return live(h.s).view->cluster->num_servers(); })
      .def_property_readonly("total_gpus", [](const ViewHandle& h) { return live(h.s).view->cluster->total_gpus(); })
      .def_property_readonly("cluster_name", [](const ViewHandle& h) { return live(h.s).view->cluster->name; });

  py::class_<JobsHandle>(m, "Jobs", "The active jobs in arrival order (valid during schedule() only)")
      .def("__len__", [](const JobsHandle& h) { return live(h.s).jobs.size(); })
      .def("__getitem__",
           [](const JobsHandle& h, long long i) {
             const CallState& c = live(h.s);
             const auto n = static_cast<long long>(c.jobs.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("job index out of range");
             return JobHandle{h.s, static_cast<size_t>(i)};
           })
      .def("__iter__",
           [](const JobsHandle& h) {
             py::list l;
             for (size_t i = 0; i < live(h.s).jobs.size(); ++i) l.append(JobHandle{h.s, i});
             return py::iter(l);
           })
      .def_property_readonly("running",
                             [](const JobsHandle& h) {
                               CallState& c = *h.s;
                               live(h.s);
                               return cached<bool>(c.running, c, [](const cl::JobView& v) { return v.running(); });
                             })
      .def_property_readonly("gpus",
                             [](const JobsHandle& h) {
                               CallState& c = *h.s;
                               live(h.s);
                               return cached<int>(c.gpus, c, [](const cl::JobView& v) { return v.gpus(); });
                             })
      .def_property_readonly(
          "waiting",
          [](const JobsHandle& h) {
            CallState& c = *h.s;
            live(h.s);
            if (!c.waiting) {
              std::vector<long long> idx;
              for (size_t i = 0; i < c.jobs.size(); ++i)
                if (!c.jobs[i].running()) idx.push_back(static_cast<long long>(i));
              py::array_t<long long> a(static_cast<py::ssize_t>(idx.size()), idx.data());
              make_readonly(a);
              c.waiting = a;
            }
            return c.waiting;
          },
          "indices of the jobs not running, in arrival order")
      .def(
          "iter_waiting",
          [](const JobsHandle& h) {
            live(h.s);
            return WaitingIter{h.s, 0};
          },
          "the waiting jobs' indices in arrival order, found as the loop asks for them (a walk that "
          "stops early reads only the jobs it passes)")
      .def_property_readonly("id",
                             [](py::object self) {
                               const auto& st = self.cast<const JobsHandle&>().s;
                               live(st);
                               st->ensure_columns();
                               return column_view(st->col_id, self);
                             })
      .def_property_readonly("num_gpus",
                             [](py::object self) {
                               const auto& st = self.cast<const JobsHandle&>().s;
                               live(st);
                               st->ensure_columns();
                               return column_view(st->col_num_gpus, self);
                             })
      .def_property_readonly("batch_size",
                             [](py::object self) {
                               const auto& st = self.cast<const JobsHandle&>().s;
                               live(st);
                               st->ensure_columns();
                               return column_view(st->col_batch_size, self);
                             })
      .def_property_readonly("arrival_s",
                             [](py::object self) {
                               const auto& st = self.cast<const JobsHandle&>().s;
                               live(st);
                               st->ensure_columns();
                               return column_view(st->col_arrival_s, self);
                             })
      .def_property_readonly("duration_s",
                             [](py::object self) {
                               const auto& st = self.cast<const JobsHandle&>().s;
                               live(st);
                               st->ensure_columns();
                               return column_view(st->col_duration_s, self);
                             })
      .def_property_readonly("attained_gpu_s",
                             [](py::object self) {
                               return field_view(live(self.cast<const JobsHandle&>().s), &cl::JobView::attained_gpu_s,
                                                 self);
                             })
      .def_property_readonly("executed_s",
                             [](py::object self) {
                               return field_view(live(self.cast<const JobsHandle&>().s), &cl::JobView::executed_s,
                                                 self);
                             })
      .def_property_readonly("last_stopped_s",
                             [](py::object self) {
                               return field_view(live(self.cast<const JobsHandle&>().s), &cl::JobView::last_stopped_s,
                                                 self);
                             })
      .def_property_readonly("queued_since_s",
                             [](py::object self) {
                               return field_view(live(self.cast<const JobsHandle&>().s), &cl::JobView::queued_since_s,
                                                 self);
                             })
      .def_property_readonly("preemptions",
                             [](py::object self) {
                               return field_view(live(self.cast<const JobsHandle&>().s), &cl::JobView::preemptions,
                                                 self);
                             })
      .def_property_readonly("restarts",
                             [](py::object self) {
                               return field_view(live(self.cast<const JobsHandle&>().s), &cl::JobView::restarts, self);
                             })
      .def(
          "remaining_time_s",
          [](const JobsHandle& h, py::object gpus) {
            const CallState& c = live(h.s);
            py::array_t<double> a(static_cast<py::ssize_t>(c.jobs.size()));
            double* p = a.mutable_data();
            std::vector<int> per_job;
            if (!gpus.is_none() && !py::isinstance<py::int_>(gpus)) per_job = gpus.cast<std::vector<int>>();
            if (!per_job.empty() && per_job.size() != c.jobs.size())
              throw py::value_error("remaining_time_s: one GPU count per job");
            for (size_t i = 0; i < c.jobs.size(); ++i) {
              const auto& v = c.jobs[i];
              const int g = gpus.is_none() ? v.job->num_gpus : per_job.empty() ? gpus.cast<int>() : per_job[i];
              p[i] = v.oracle ? v.oracle->remaining_time_s(g) : std::nan("");
            }
            return a;
          },
          py::arg("gpus") = py::none(),
          "Oracle: each job's remaining time with `gpus` GPUs (None: its request; an int; or one per job)");

  py::class_<WaitingIter>(m, "WaitingIter")
      .def("__iter__", [](py::object self) { return self; })
      .def("__next__", [](WaitingIter& w) {
        const CallState& c = live(w.s);
        while (w.i < c.jobs.size() && c.jobs[w.i].running()) ++w.i;
        if (w.i >= c.jobs.size()) throw py::stop_iteration();
        return w.i++;
      });

  py::class_<JobHandle>(m, "Job", "One active job (valid during schedule() only)")
      .def_property_readonly("index", [](const JobHandle& h) { return h.i; })
      .def_property_readonly("id", [](const JobHandle& h) { return h.v().job->id; })
      .def_property_readonly("name", [](const JobHandle& h) { return h.v().job->name; })
      .def_property_readonly("application", [](const JobHandle& h) { return h.v().job->application; })
      .def_property_readonly("kind",
                             [](const JobHandle& h) {
                               switch (h.v().job->kind) {
                                 case cl::WorkKind::Profile:
                                   return "profile";
                                 case cl::WorkKind::FixedDuration:
                                   return "fixed-duration";
                                 case cl::WorkKind::ParameterServer:
                                   return "parameter-server";
                               }
                               return "?";
                             })
      .def_property_readonly("num_gpus", [](const JobHandle& h) { return h.v().job->num_gpus; })
      .def_property_readonly(
          "ps",
          [](const JobHandle& h) -> py::object {
            const auto& spec = h.v().job->ps;
            if (!spec) return py::none();
            py::dict d;
            d["type"] = spec->job_type().name;
            d["worker"] = demand_dict(spec->worker);
            d["ps"] = demand_dict(spec->ps);
            d["user_workers"] = spec->user_workers;
            d["user_ps"] = spec->user_ps;
            d["total_epochs"] = spec->total_epochs;
            return d;
          },
          "parameter-server jobs: the task demands and the user's (workers, PSs); None for GPU jobs")
      .def_property_readonly("batch_size", [](const JobHandle& h) { return h.v().job->batch_size; })
      .def_property_readonly("arrival_s", [](const JobHandle& h) { return h.v().job->arrival_s; })
      .def_property_readonly("duration_s", [](const JobHandle& h) { return h.v().job->duration_s; })
      .def_property_readonly("running", [](const JobHandle& h) { return h.v().running(); })
      .def_property_readonly("gpus", [](const JobHandle& h) { return h.v().gpus(); })
      .def_property_readonly("placement", [](const JobHandle& h) { return placement_object(h.v().placement); })
      .def_property_readonly("attained_gpu_s", [](const JobHandle& h) { return h.v().attained_gpu_s; })
      .def_property_readonly("executed_s", [](const JobHandle& h) { return h.v().executed_s; })
      .def_property_readonly("last_stopped_s", [](const JobHandle& h) { return h.v().last_stopped_s; })
      .def_property_readonly("queued_since_s", [](const JobHandle& h) { return h.v().queued_since_s; })
      .def_property_readonly("preemptions", [](const JobHandle& h) { return h.v().preemptions; })
      .def_property_readonly("restarts", [](const JobHandle& h) { return h.v().restarts; })
      .def(
          "remaining_time_s",
          [](const JobHandle& h, py::object gpus) {
            const auto& v = h.v();
            if (!v.oracle) return std::nan("");
            return v.oracle->remaining_time_s(gpus.is_none() ? v.job->num_gpus : gpus.cast<int>());
          },
          py::arg("gpus") = py::none(), "Oracle: remaining time with `gpus` GPUs (None: the request)")
      .def(
          "step_time_s",
          [](const JobHandle& h, int gpus) { return h.v().oracle ? h.v().oracle->step_time_s(gpus) : std::nan(""); },
          py::arg("gpus"))
      .def("remaining_iterations",
           [](const JobHandle& h) { return h.v().oracle ? h.v().oracle->remaining_iterations() : std::nan(""); })
      .def("max_gpus", [](const JobHandle& h) { return h.v().oracle ? h.v().oracle->max_gpus() : h.v().job->num_gpus; })
      .def("__repr__", [](const JobHandle& h) {
        const auto& v = h.v();
        return "Job(index=" + std::to_string(h.i) + ", id=" + std::to_string(v.job->id) + ", name='" + v.job->name +
               "', num_gpus=" + std::to_string(v.job->num_gpus) + ", running=" + (v.running() ? "True" : "False") + ")";
      });

  m.def(
      "register_cluster_policy", [](py::object cls) { cl::register_policy(python_policy_entry(cls)); }, py::arg("cls"),
      "Registers a dmlkit.cluster.Policy subclass under cls.name (replacing an earlier Python one)");
}

}  // namespace dmlkit::python
