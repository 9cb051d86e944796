// The dl2 policy; see dl2_policy.h.
#include "cluster/policies/dl2/dl2_policy.h"

#include <algorithm>
#include <filesystem>

#include "cluster/policies/factories.h"
#include "core/data_dir.h"
#include "core/error.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {

learn::MlpShape dl2_net_shape(const std::string& config, int window, bool value) {
  learn::MlpShape s;
  s.inputs = kDl2Rows * window;
  s.outputs = value ? 1 : 3 * window + 1;
  if (config == "code") {
    const int n = kDl2Rows * window * 2 / 3;
    s.hidden = {n, n};
    s.affine = true;
  } else if (config == "paper") {
    s.hidden = {256, 256};
    s.affine = false;
  } else if (config == "shared") {
    // Only the value network of `shared` is an MLP: the public code's.
    return dl2_net_shape("code", window, value);
  } else {
    throw Error("field 'dl2.net': unknown network configuration '" + config + "' (known: code, paper, shared)");
  }
  return s;
}

learn::ColumnNetShape dl2_column_shape(int window, const std::vector<int>& hidden) {
  return learn::column_net_shape(kDl2Rows, window, /*types=*/8, {0.01f, 1.0f, 1.0f, 1.0f / 16, 1.0f / 16}, hidden,
                                 /*k=*/3, {32}, /*extra=*/1);
}

learn::StoredNet dl2_initial_net(const std::string& config, int window, bool value, Rng& rng,
                                 const std::vector<int>& column_hidden) {
  if (config == "shared" && !value) {
    const learn::ColumnNetShape s = dl2_column_shape(window, column_hidden);
    return learn::column_stored_net(s, learn::column_net_initial_parameters(s, rng));
  }
  const learn::MlpShape s = dl2_net_shape(config, window, value);
  return learn::StoredNet{s, learn::mlp_initial_parameters(s, rng)};
}

Dl2Network::Dl2Network(const learn::StoredNet& net, bool incremental)
    : net_(net), column_(net.arch == "column"), incremental_(incremental) {
  net_.parameters.clear();
  set_parameters(net.parameters);
}

void Dl2Network::set_parameters(const std::vector<float>& parameters) {
  if (column_) {
    col_ = learn::ColumnNetForward(net_.column, parameters);
    col_.set_cached_rows(3);  // as the MLP's prefix below: type, slots in the system, remaining work
  } else {
    mlp_ = learn::MlpForward(net_.shape, parameters);
    // Rows 0-2 of the state (type, slots in the system, remaining work) change only when the
    // window does: the first layer's sum over them is reused between the inferences of a slot.
    mlp_.set_cached_prefix(3 * (net_.shape.inputs / kDl2Rows));
    if (incremental_) inc_ = learn::MlpIncremental(net_.shape, parameters);
  }
}

bool Dl2Network::probabilities(const float* state, int col, const std::vector<unsigned char>& mask,
                               std::vector<double>& probs) {
  probs.resize(outputs());
  if (column_) {
    if (incremental_) return col_.probabilities(state, col, mask.data(), probs.data());
    return learn::masked_softmax(col_.run_column(state, col), mask, probs, learn::SoftmaxExp::Vector);
  }
  if (!incremental_) return learn::masked_softmax(mlp_.run(state), mask, probs, learn::SoftmaxExp::Vector);
  if (col < 0) return learn::masked_softmax(inc_.run(state), mask, probs, learn::SoftmaxExp::Float);
  const int L = inputs() / kDl2Rows;
  int changed[kDl2Rows];
  for (int r = 0; r < kDl2Rows; ++r) changed[r] = r * L + col;
  return learn::masked_softmax(inc_.run_changed(state, changed, kDl2Rows), mask, probs, learn::SoftmaxExp::Float);
}

int Dl2Network::sample(const float* state, int col, const std::vector<unsigned char>& mask, Rng& rng) {
  if (column_ && incremental_) return col_.evaluate(state, col, mask.data()) ? col_.draw(rng.uniform()) : -1;
  return probabilities(state, col, mask, probs_) ? dl2_inverse_cdf(probs_, rng.uniform()) : -1;
}

Dl2Policy::Dl2Policy(const Dl2PolicyConfig& config, const learn::StoredNet& net, uint64_t seed)
    : config_(config), net_(net, config.incremental), rng_(Rng(seed).split(0xd12)), slot_(config.shape) {
  if (net_.inputs() != config_.shape.state_size() || net_.outputs() != config_.shape.actions())
    throw Error("dl2: the network has " + std::to_string(net_.inputs()) + " inputs and " + std::to_string(net_.outputs()) +
                " outputs; a window of " + std::to_string(config_.shape.window) + " needs " +
                std::to_string(config_.shape.state_size()) + " and " + std::to_string(config_.shape.actions()));
  state_.resize(config_.shape.state_size());
  mask_.resize(config_.shape.actions());
}

void Dl2Policy::set_parameters(const std::vector<float>& parameters) {
  net_.set_parameters(parameters);
}

double Dl2Policy::slot_reward(std::span<const JobView> jobs) {
  progress_.clear();
  if (ran_.empty()) return 0.0;
  int max_id = 0;
  for (const Ran& r : ran_) max_id = std::max(max_id, r.id);
  epochs_now_.assign(max_id + 1, -1.0);
  for (const JobView& v : jobs)
    if (v.job->id <= max_id) epochs_now_[v.job->id] = ps_monitor(v)->epochs_done();
  double reward = 0;
  for (const Ran& r : ran_) {
    const double now = epochs_now_[r.id] >= 0 ? epochs_now_[r.id] : r.total_epochs;  // gone = finished
    const double p = (now - r.epochs_at_start) / r.reward_scale;
    progress_.emplace_back(r.id, p);
    reward += p;
  }
  return reward;
}

void Dl2Policy::remember_running(const ClusterView& view, std::span<const JobView> jobs) {
  ran_.clear();
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (slot_.workers(static_cast<int>(i)) < 1 || slot_.ps(static_cast<int>(i)) < 1) continue;
    const PsJobMonitor* m = ps_monitor(jobs[i]);
    double scale = m->true_total_epochs();
    if (config_.speedup_reward) {
      const double epochs_per_slot = m->true_speed(1, 1) * view.round_s / m->spec().job_type().epoch_size;
      if (epochs_per_slot > 0 && std::isfinite(epochs_per_slot)) scale = epochs_per_slot;
    }
    ran_.push_back({jobs[i].job->id, m->epochs_done(), m->true_total_epochs(), scale});
  }
}

void Dl2Policy::finish() {
  if (actor_ != nullptr) actor_->on_slot(slot_reward({}), had_slot_);
  had_slot_ = false;
  ran_.clear();
}

int Dl2Policy::choose(const std::vector<double>& probs) {
  if (config_.argmax) return static_cast<int>(std::max_element(probs.begin(), probs.end()) - probs.begin());
  return dl2_inverse_cdf(probs, rng_.uniform());
}

int dl2_inverse_cdf(const std::vector<double>& probs, double u) {
  return learn::inverse_cdf(static_cast<int>(probs.size()), u, [&](int a) { return probs[a]; });
}

void Dl2Policy::schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) {
  if (actor_ != nullptr) actor_->on_slot(slot_reward(jobs), had_slot_);
  had_slot_ = true;
  slot_.begin(view, jobs, out, /*initial_bundle=*/true);
  if (actor_ != nullptr) dl2_explore_begin_slot(config_.explore, explore_, rng_);
  const int void_action = config_.shape.void_action();
  // The column whose state and mask changed since the last inference (the acting job's: its
  // workers, PSs and dominant share; the other jobs' values and the totals they are divided by stay
  // the same within a slot); -1: the whole state, at the slot's start and when the window moves.
  int changed = -1;
  for (;;) {
    if (slot_.refresh_window()) changed = -1;
    if (!slot_.any_job_action()) break;  // no sample
    if (changed < 0) {
      slot_.observe(state_.data());
      slot_.mask(mask_.data());
    } else {
      slot_.observe_column(state_.data(), changed);
      slot_.mask_column(mask_.data(), changed);
    }
    ++inferences_;
    int action;
    if (actor_ == nullptr && !config_.argmax) {  // the probabilities are not needed, only a draw
      action = net_.sample(state_.data(), changed, mask_, rng_);
      if (action < 0) break;
    } else {
      if (!net_.probabilities(state_.data(), changed, mask_, probs_)) break;
      action = choose(probs_);
      if (actor_ != nullptr) action = dl2_explore(config_.explore, slot_, mask_.data(), probs_, action, explore_, rng_);
    }
    if (action == void_action) {
      if (actor_ != nullptr) actor_->on_sample(state_.data(), mask_.data(), action, -1);
      break;
    }
    changed = action / 3;
    const int job = slot_.window_job(changed);
    if (!slot_.add(job, static_cast<Dl2Task>(action % 3), out)) break;  // did not fit: not stored
    if (actor_ != nullptr) actor_->on_sample(state_.data(), mask_.data(), action, jobs[job].job->id);
  }
  remember_running(view, jobs);
}

}  // namespace dmlkit::cluster

// ---- model files and the registry entry ----------------------------------------------------

namespace dmlkit::cluster {

std::string dl2_model_path(const std::string& name_or_path) {
  if (name_or_path.find('/') == std::string::npos && name_or_path.find(".json") == std::string::npos) {
    const std::string bundled = data_path("models/" + name_or_path + ".json");
    if (std::filesystem::is_regular_file(bundled)) return bundled;
    throw Error("dl2.model: no bundled model '" + name_or_path + "' (in " + data_path("models") +
                "); give a model file's path");
  }
  return name_or_path;
}

Dl2Model load_dl2_model(const std::string& name_or_path) {
  const std::string path = dl2_model_path(name_or_path);
  learn::ModelFile f = learn::load_model_file(path);
  if (f.kind != "dl2") throw Error(path, 0, "kind", "not a DL2 model (kind '" + f.kind + "')");
  auto it = f.nets.find("policy");
  if (it == f.nets.end()) throw Error(path, 0, "nets.policy", "missing");
  Dl2Model m;
  m.path = path;
  m.policy = it->second;
  const int in = m.policy.shape.inputs;  // a column network's too (learn/model_file.h)
  if (in % kDl2Rows != 0 || m.policy.shape.outputs != 3 * (in / kDl2Rows) + 1)
    throw Error(path, 0, "nets.policy", "not a DL2 policy network (inputs 6L, outputs 3L+1)");
  m.window = in / kDl2Rows;
  if (auto v = f.nets.find("value"); v != f.nets.end()) m.value = v->second;
  m.meta = f.meta;
  return m;
}

learn::StoredNet dl2_policy_at_window(const Dl2Model& m, long long window) {
  if (window < 0 || window > 1000) throw Error("field 'dl2.window': must be 0 (the model's) or a window of 1..1000");
  learn::StoredNet net = m.policy;
  if (window == 0 || window == m.window) return net;
  if (net.arch != "column")
    throw Error("field 'dl2.window': " + m.path + " was trained for a window of " + std::to_string(m.window) +
                "; only a column-shared model (--net shared) runs at another");
  net.column.window = static_cast<int>(window);
  net.shape.inputs = net.column.inputs();
  net.shape.outputs = net.column.outputs();
  return net;
}

PolicyEntry dl2_entry() {
  return {"dl2",
          "DL2 (TPDS'21): a policy network resizes every PS job each slot (trained by SL on a heuristic, then RL)",
          [](const PolicyOptions& o, const Knobs& k) -> std::unique_ptr<Policy> {
            const Dl2Model m = load_dl2_model(k.get_string("dl2.model"));
            const learn::StoredNet net = dl2_policy_at_window(m, k.get_int("dl2.window"));
            Dl2PolicyConfig c;
            c.shape.window = net.shape.inputs / kDl2Rows;
            c.argmax = k.get_string("dl2.select") == "max";
            c.restart_cost = k.get_bool("dl2.restart_cost");
            c.incremental = k.get_string("dl2.incremental") == "on";
            return std::make_unique<Dl2Policy>(c, net, o.seed);
          },
          {knob_string("dl2.model", "dl2-96-shared-w40",
                       "trained model: a bundled name (data/models/NAME.json) or a model file's path (default "
                       "and the presets': [A] ours, the column-shared network at a wider window, docs/dl2.md; "
                       "the code's network: dl2-96, dl2-500)"),
           knob_int("dl2.window", 0,
                    "window L to run the model at (0: the one it was trained for; another only for a --net shared model)"),
           knob_enum("dl2.select", "sample", {"sample", "max"},
                     "draw each action from the masked distribution (as the authors' validation) or take the arg-max"),
           knob_enum("dl2.incremental", "on", {"off", "on"},
                     "[A] the network's incremental fast path within a slot (other rounding: may change a "
                     "sampled action, none did on the bundled models; off: bit for bit the reference forward pass)"),
           knob_bool("dl2.restart_cost", false,
                     "charge the simulator's restart delay when a slot's rebuild moves a job (DL2: free)")},
          {.gpu_jobs = false, .ps_jobs = true, .make_ps = nullptr, .ps_variant = ""}};
}

}  // namespace dmlkit::cluster
