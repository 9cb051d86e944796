// Online influence-maximization algorithms written in Python, through the seam of the C++ ones
// (influence/algorithm.h). A dmlkit.influence.Algorithm subclass is registered by name; at each
// step PythonAlgorithm calls select(step, rng) once (and observe(step, seeds, marginal) once), with
// the present nodes as zero-copy, read-only NumPy views (valid during the call only) and the run's
// random stream (dmlkit.Rng: the same seed gives the same run). Python algorithms see no network
// (NetworkAccess::None, as the bandits).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>
#include <vector>

#include "bindings.h"
#include "core/error.h"
#include "core/rng.h"
#include "influence/algorithm.h"
#include "python_error.h"

namespace dmlkit::python {

namespace inf = dmlkit::influence;

namespace {

struct StepState {
  const inf::StepInput* in = nullptr;
  Rng* rng = nullptr;
  bool valid = false;
};
using StepPtr = std::shared_ptr<StepState>;

const StepState& live(const StepPtr& s) {
  if (!s->valid) throw py::value_error("a step is valid only during select() and observe()");
  return *s;
}
struct StepHandle {
  StepPtr s;
};
struct RngHandle {
  StepPtr s;
  Rng& rng() const {
    const StepState& st = live(s);
    if (!st.rng) throw py::value_error("no random stream in observe()");
    return *st.rng;
  }
};

template <class T>
py::array_t<T> readonly_view(const std::vector<T>& v, py::handle base) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()), v.data(), base);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

class PythonAlgorithm final : public inf::Algorithm {
 public:
  PythonAlgorithm(py::object instance, std::string name) : instance_(std::move(instance)), name_(std::move(name)) {
    state_ = std::make_shared<StepState>();
    step_obj_ = py::cast(StepHandle{state_});
    rng_obj_ = py::cast(RngHandle{state_});
    select_ = instance_.attr("select");
    observe_ = instance_.attr("observe");
    reset_ = instance_.attr("reset");
  }
  ~PythonAlgorithm() override {
    py::gil_scoped_acquire gil;
    state_->valid = false;
    select_ = observe_ = reset_ = step_obj_ = rng_obj_ = instance_ = py::object();
  }
  std::string name() const override { return name_; }

  void reset(uint32_t num_nodes, int k) override {
    py::gil_scoped_acquire gil;
    try {
      reset_(num_nodes, k);
    } catch (py::error_already_set& e) {
      throw python_error(e, name_ + ".reset");
    }
  }

  void select(const inf::StepInput& in, Rng& rng, std::vector<inf::NodeId>& seeds) override {
    py::gil_scoped_acquire gil;
    state_->in = &in;
    state_->rng = &rng;
    state_->valid = true;
    py::object r;
    try {
      r = select_(step_obj_, rng_obj_);
    } catch (py::error_already_set& e) {
      state_->valid = false;
      throw python_error(e, name_ + ".select");
    }
    state_->valid = false;
    try {
      for (py::handle h : r) seeds.push_back(h.cast<inf::NodeId>());
    } catch (const py::cast_error&) {
      throw Error(name_ + ".select: returned " + std::string(py::repr(r)) + "; expected a sequence of node ids");
    }
    // The runner's contract (k distinct present nodes), checked here so that a Python mistake is
    // the user's error (exit 2), not an internal one.
    if (static_cast<int>(seeds.size()) != in.k)
      throw Error(name_ + ".select: returned " + std::to_string(seeds.size()) + " seeds at step " +
                  std::to_string(in.step) + ", expected k = " + std::to_string(in.k));
    mark_.assign(in.num_nodes, 0);
    for (inf::NodeId s : seeds) {
      if (s >= in.num_nodes || !(*in.node_present)[s])
        throw Error(name_ + ".select: node " + std::to_string(s) + " is not present at step " +
                    std::to_string(in.step));
      if (mark_[s]++) throw Error(name_ + ".select: node " + std::to_string(s) + " chosen twice");
    }
  }

  void observe(const inf::StepInput& in, const std::vector<inf::NodeId>& seeds,
               const std::vector<uint32_t>& marginal) override {
    py::gil_scoped_acquire gil;
    state_->in = &in;
    state_->rng = nullptr;
    state_->valid = true;
    try {
      observe_(step_obj_, readonly_view(seeds, step_obj_), readonly_view(marginal, step_obj_));
    } catch (py::error_already_set& e) {
      state_->valid = false;
      throw python_error(e, name_ + ".observe");
    }
    state_->valid = false;
  }

 private:
  py::object instance_, select_, observe_, reset_, step_obj_, rng_obj_;
  std::string name_;
  StepPtr state_;
  std::vector<uint8_t> mark_;
};

}  // namespace

inf::AlgorithmEntry python_algorithm_entry(py::handle cls) {
  const std::string name = cls.attr("name").cast<std::string>();
  const std::string summary = cls.attr("summary").cast<std::string>();
  PyObject* raw = cls.inc_ref().ptr();  // lives until the process ends
  auto factory = [raw, name](const Knobs&) -> std::unique_ptr<inf::Algorithm> {
    py::gil_scoped_acquire gil;
    py::object instance;
    try {
      instance = py::handle(raw)();
    } catch (py::error_already_set& e) {
      throw python_error(e, name + "()");
    }
    return std::make_unique<PythonAlgorithm>(std::move(instance), name);
  };
  return {name, summary, factory};
}

void bind_influence(py::module_& m) {
  py::class_<StepHandle>(m, "Step", "One step of an influence run (valid during select()/observe() only)")
      .def_property_readonly("step", [](const StepHandle& h) { return live(h.s).in->step; })
      .def_property_readonly("k", [](const StepHandle& h) { return live(h.s).in->k; })
      .def_property_readonly("num_nodes", [](const StepHandle& h) { return live(h.s).in->num_nodes; })
      .def_property_readonly(
          "present_nodes",
          [](py::object self) {
            return readonly_view(*live(self.cast<const StepHandle&>().s).in->present_nodes, self);
          },
          "ids of the nodes present at this step, ascending (read-only NumPy view)")
      .def_property_readonly(
          "node_present",
          [](py::object self) { return readonly_view(*live(self.cast<const StepHandle&>().s).in->node_present, self); },
          "one flag per node id (read-only NumPy view)");
  py::class_<RngHandle>(m, "Rng", "The run's random stream (core/rng.h): the same --seed gives the same draws")
      .def(
          "uniform", [](const RngHandle& h) { return h.rng().uniform(); }, "uniform in [0, 1)")
      .def(
          "uniform_int", [](const RngHandle& h, int64_t lo, int64_t hi) { return h.rng().uniform_int(lo, hi); },
          py::arg("lo"), py::arg("hi"), "uniform integer in [lo, hi]")
      .def(
          "next", [](const RngHandle& h) { return h.rng().next(); }, "64 random bits (e.g. to seed numpy)");
  m.def(
      "register_influence_algorithm", [](py::object cls) { inf::register_algorithm(python_algorithm_entry(cls)); },
      py::arg("cls"),
      "Registers a dmlkit.influence.Algorithm subclass under cls.name (replacing an earlier Python one)");
}

}  // namespace dmlkit::python
