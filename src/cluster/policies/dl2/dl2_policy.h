// The `dl2` cluster policy (Peng et al., "DL2: A Deep Learning-driven Scheduler for Deep Learning
// Clusters", IEEE TPDS 2021; the authors' simulator pengyanghua/DL2 rl_env.py): every slot it
// rebuilds every job's allocation (dl2_slot.h: one bundle per job, then one task per inference of
// the policy network until VOID or the least-loaded server is full). The network runs on
// learn/mlp.h (no libtorch at run time); a trained model comes from `dl2.model` (a dmlkit model
// file, learn/model_file.h) or the preset's bundled model (data/models/). [A] The bundled default
// models are not the paper's network: they are our column-shared network (learn/column_net.h)
// trained with our speed-up reward and run at a wider window than the code's (40 on dl2-96, 120 on
// dl2-500), the design that beats Optimus here; the code's networks are `dl2.model=dl2-96|dl2-500`
// (docs/dl2.md, docs/reproduction-dl2.md).
// Actions are drawn from the masked distribution (as the authors' validation,
// SELECT_ACTION_MAX_PROB = False) with the run's seed, or taken as the arg-max (`dl2.select=max`).
// While training, the same policy object is the actor (Dl2Actor): it applies the job-aware
// exploration (dl2_explore.h), hands every stored step to the actor, and reports each slot's
// reward: the normalised progress sum_j (epochs trained in the slot) / E_j (rl_env.py _progress).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cluster/policies/dl2/dl2_explore.h"
#include "cluster/policies/dl2/dl2_slot.h"
#include "cluster/policy.h"
#include "learn/mlp.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {

// What training plugs into the policy.
class Dl2Actor {
 public:
  virtual ~Dl2Actor() = default;
  // At the start of every slot (and once at the end of the episode, from Dl2Policy::finish):
  // the reward of the slot just ended, if there was one. May change the policy's parameters.
  virtual void on_slot(double reward, bool had_slot) = 0;
  // A stored step of this slot: state, mask, the action taken (VOID included; a step whose task
  // did not fit is not stored) and the id of the job it acted on (-1 for VOID).
  virtual void on_sample(const float* state, const unsigned char* mask, int action, int job_id) = 0;
};

struct Dl2PolicyConfig {
  Dl2Shape shape;
  bool argmax = false;       // dl2.select=max
  Dl2ExploreConfig explore;  // used when an actor is attached
  bool restart_cost = false;  // dl2.restart_cost: the simulator charges its restart delay
  // Training only: what a job's progress in a slot is divided by in the reward. false: its total
  // epochs (the paper's and the code's normalised progress); true ([A], ours, `--reward speedup`):
  // the epochs it would run in a slot with 1 PS and 1 worker, so each job counts by its speed-up,
  // whatever its length.
  bool speedup_reward = false;
  // dl2.incremental ([A], ours): the network's fast path within a slot (Dl2Network).
  bool incremental = true;
};

// The policy network at run time: an MLP (`code`, `paper`: learn/mlp.h) or the column-shared
// network (`shared`, ours: learn/column_net.h, which recomputes only the columns that changed
// since the previous inference). Allocation-free per inference.
// With `incremental` (dl2.incremental=on, [A], ours; docs/dl2.md), probabilities() takes the
// fast path: the MLP's first layer is updated by the changed column only, with the batch-norm
// affine folded into the next layer (learn::MlpIncremental), and single-precision exponentials in
// the softmax (SoftmaxExp::Float); the column-shared network keeps its feature sums and
// exponentials per column (learn::ColumnNetForward::probabilities). Other
// rounding: the probabilities agree with the exact path to about 1e-6 relative, which can change
// a sampled action where a uniform draw falls that close to a boundary (docs/performance.md
// counts how often). It is the default (Dl2PolicyConfig::incremental); off, every output is bit
// for bit the reference's.
class Dl2Network {
 public:
  Dl2Network() = default;
  Dl2Network(const learn::StoredNet& net, bool incremental);
  int inputs() const { return net_.shape.inputs; }
  int outputs() const { return net_.shape.outputs; }
  const learn::StoredNet& stored() const { return net_; }
  // Logits of the state (inputs() values); valid until the next call. Always the exact path.
  const std::vector<float>& run(const float* state) { return column_ ? col_.run(state) : mlp_.run(state); }
  // The masked softmax of the logits into probs (exact path: learn::masked_softmax with
  // SoftmaxExp::Vector; incremental: the fast path above), when
  // the state differs from the previous call's in column `col` only (col < 0: unknown, or the
  // first call); false if no action is allowed.
  bool probabilities(const float* state, int col, const std::vector<unsigned char>& mask, std::vector<double>& probs);
  // The action dl2_inverse_cdf(probabilities, rng.uniform()) draws, or -1 if no action is allowed
  // (then no number is drawn); the column-shared fast path draws without writing the probabilities
  // (learn::ColumnNetForward::draw: the same action).
  int sample(const float* state, int col, const std::vector<unsigned char>& mask, Rng& rng);
  void set_parameters(const std::vector<float>& parameters);

 private:
  learn::StoredNet net_;  // shapes (parameters kept by the forward pass)
  bool column_ = false;
  bool incremental_ = false;
  learn::MlpForward mlp_;
  learn::MlpIncremental inc_;
  learn::ColumnNetForward col_;
  std::vector<double> probs_;  // sample(): scratch
};

class Dl2Policy final : public Policy {
 public:
  Dl2Policy(const Dl2PolicyConfig& config, const learn::StoredNet& net, uint64_t seed);
  Dl2Policy(const Dl2PolicyConfig& config, const learn::MlpShape& net, std::vector<float> parameters, uint64_t seed)
      : Dl2Policy(config, learn::StoredNet{net, std::move(parameters)}, seed) {}
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override;
  bool handles_ps_jobs() const override { return true; }
  // Re-allocations are free (the DL2 simulator's Job.step), unless dl2.restart_cost.
  bool charges_restarts() const override { return config_.restart_cost; }

  void set_parameters(const std::vector<float>& parameters);
  void attach(Dl2Actor* actor) { actor_ = actor; }
  // Ends the episode: reports the last slot's reward (every job still counted finished).
  void finish();
  const Dl2ExploreState& exploration() const { return explore_; }
  long inferences() const { return inferences_; }  // network runs so far (benchmarks)
  // The jobs that ran in the slot last reported to the actor, with their normalised progress in it
  // (the per-job reward of the acting-job ablation, rl_env.py get_job_reward).
  const std::vector<std::pair<int, double>>& last_progress() const { return progress_; }

 private:
  double slot_reward(std::span<const JobView> jobs);
  void remember_running(const ClusterView& view, std::span<const JobView> jobs);
  int choose(const std::vector<double>& probs);

  Dl2PolicyConfig config_;
  Dl2Network net_;
  Rng rng_;
  Dl2Slot slot_;
  Dl2Actor* actor_ = nullptr;
  Dl2ExploreState explore_;
  std::vector<float> state_;
  std::vector<unsigned char> mask_;
  std::vector<double> probs_;
  // Jobs that ran in the last slot: id, epochs done at its start, E.
  struct Ran {
    int id;
    double epochs_at_start;
    double total_epochs;
    double reward_scale;  // progress is divided by it: total epochs, or epochs per slot at (1, 1)
  };
  std::vector<Ran> ran_;
  std::vector<double> epochs_now_;  // by job id, scratch
  std::vector<std::pair<int, double>> progress_;
  bool had_slot_ = false;
  long inferences_ = 0;
};

// The action the uniform number u in [0, 1) draws from probs: the first allowed action whose
// cumulative probability exceeds u (the authors' cumsum > U test), else the last allowed one.
int dl2_inverse_cdf(const std::vector<double>& probs, double u);

// A trained DL2 model (learn/model_file.h, kind "dl2"): the policy network, the value network if
// saved, the window L it was trained for, and how it was produced (meta).
struct Dl2Model {
  std::string path;
  int window = 20;
  learn::StoredNet policy, value;
  std::map<std::string, std::string> meta;
};
// A bundled model's name (data/models/NAME.json) or a path.
std::string dl2_model_path(const std::string& name_or_path);
// Throws Error naming the file and field on a missing or corrupt model.
Dl2Model load_dl2_model(const std::string& name_or_path);

// The model's policy network to run at window L ([A], ours: `dl2.window`; 0 = the model's own):
// a column-shared network's parameters do not depend on L, so it runs at any window; an MLP only
// at its own (otherwise throws Error naming `dl2.window`).
learn::StoredNet dl2_policy_at_window(const Dl2Model& m, long long window);

// The MLP shape of DL2's networks for a window L: `code` = the public simulator (two hidden layers
// of floor(6L * 2/3) with the batch-norm affine), `paper` = two hidden layers of 256 without it
// [A: the paper does not mention batch normalisation]. outputs = 3L + 1 (policy) or 1 (value).
learn::MlpShape dl2_net_shape(const std::string& config, int window, bool value);
// The column-shared policy network of `shared` (ours, [A]; learn/column_net.h): per column the
// job type one-hot over DL2's 8 types, slots in the system x 0.01, remaining work, dominant share,
// workers / 16, PSs / 16; column MLP 13 -> 64 -> 64 -> 3 (worker, PS, bundle), context MLP on the
// columns' mean 14 -> 32 -> 4 (a bias per task kind and the VOID logit).
// [A] `hidden`: the column MLP's hidden widths (`cluster train dl2 --column-hidden`; default
// kDl2ColumnHidden, those of every bundled column-shared model).
inline const std::vector<int> kDl2ColumnHidden = {64, 64};
learn::ColumnNetShape dl2_column_shape(int window, const std::vector<int>& hidden = kDl2ColumnHidden);
// A network of `config` (code | paper | shared) with initial parameters drawn from rng. `shared`
// has the column-shared policy network and the `code` value network ([A]: only the policy
// network decides at run time; the critic stays the public code's).
learn::StoredNet dl2_initial_net(const std::string& config, int window, bool value, Rng& rng,
                                 const std::vector<int>& column_hidden = kDl2ColumnHidden);

}  // namespace dmlkit::cluster
