// Harmony's imitation warm start, [A] ours (not in the paper, which starts its DRL from a random
// network): a teacher placer (one of the baselines: by default the one with the best validation JCT
// under the preset's interference model) runs on the training traces in the simulator, and each of
// its decisions is replayed on Harmony's board (harmony_state.h) as the sequence of Harmony actions
// that builds the same placement: the new jobs in arrival order, N' at a time as the placer takes
// them; each placed job's tasks one at a time, PS and worker alternating in the request's
// proportion (next_task_is_ps), each on the lowest-id server where the teacher still has a task of
// that kind; a job the teacher left waiting becomes that job's "defer" action when the shape has
// them (HarmonyShape::defer), else gives no sample. Every step is one sample (the state before it,
// its mask, the action); the actor is fitted to them (masked cross-entropy) before DRL improves it
// on the reward model (harmony_train.h). Knobs: cluster train harmony --imitate, --il-steps,
// --il-lr, --il-traces.
// harmony-seq2seq (harmony_seq2seq_train.h) shares all of it but the replay: its decisions are
// replayed on its own board (harmony_seq2seq_imitation.h), a job's PSs first, then its workers, each
// task on the lowest-id server where the teacher still has a task of that kind (the label is that
// server, the pointer's target), and a job the teacher held back labelled with the wait target when
// the network has one (--defer).
#pragma once
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "cluster/policies/harmony/harmony_placer.h"
#include "cluster/policy.h"
#include "cluster/train/harmony_drl.h"

namespace dmlkit::cluster {

struct HarmonyImitationData {
  int state_size = 0, actions = 0;
  std::vector<float> states;          // rows x state_size
  std::vector<unsigned char> masks;   // rows x actions
  std::vector<int> labels;            // rows
  long decisions = 0;                 // teacher decisions seen
  long dropped_jobs = 0;              // placed jobs whose replay failed (none expected)
  size_t rows() const { return labels.size(); }
  void append(const HarmonyImitationData& o);
};

// The tasks of a teacher's placement still to replay, per server and kind.
class TeacherTasks {
 public:
  TeacherTasks(const Placement& p, int servers);
  // The lowest-id server with a task of `kind` (0 worker, 1 PS) left where allowed(m); -1 if none.
  int first(int kind, const std::function<bool(int)>& allowed) const;
  void take(int kind, int server) { (kind == 0 ? w_ : p_)[static_cast<size_t>(server)] -= 1; }

 private:
  std::vector<int> w_, p_;
};

// Replays one teacher decision as a learned placer's steps (harmony's board, below, or
// harmony-seq2seq's, harmony_seq2seq_imitation.h).
class ImitationReplay {
 public:
  virtual ~ImitationReplay() = default;
  // running: the running PS jobs; fresh: the new ones in arrival order; placed[k]: the teacher's
  // placement of fresh[k] (empty: it waits).
  virtual void replay(std::span<const RunningPsJob> running, std::span<const PsJobSpec* const> fresh,
                      std::span<const Placement> placed, HarmonyImitationData& data) = 0;
};

// Harmony's replay (file comment).
class HarmonyBoardReplay final : public ImitationReplay {
 public:
  HarmonyBoardReplay(const HarmonyShape& shape, const ClusterSpec& cluster);
  void replay(std::span<const RunningPsJob> running, std::span<const PsJobSpec* const> fresh,
              std::span<const Placement> placed, HarmonyImitationData& data) override;

 private:
  void record(int action, HarmonyImitationData& data);
  HarmonyBoard board_;
  std::vector<float> state_;
  std::vector<unsigned char> mask_;
};

// Runs the teacher and records its decisions through a replay into `out`.
class HarmonyImitationRecorder final : public Policy {
 public:
  HarmonyImitationRecorder(std::unique_ptr<Policy> teacher, std::unique_ptr<ImitationReplay> replay,
                           HarmonyImitationData& out);
  // Harmony's (HarmonyBoardReplay).
  HarmonyImitationRecorder(std::unique_ptr<Policy> teacher, const HarmonyShape& shape, const ClusterSpec& cluster,
                           HarmonyImitationData& out);
  void schedule(const ClusterView& view, std::span<const JobView> jobs, std::span<Placement> out) override;
  const char* ps_assignment() const override { return teacher_->ps_assignment(); }
  bool handles_ps_jobs() const override { return teacher_->handles_ps_jobs(); }
  bool charges_restarts() const override { return teacher_->charges_restarts(); }

 private:
  std::unique_ptr<Policy> teacher_;
  std::unique_ptr<ImitationReplay> replay_;
  HarmonyImitationData& data_;
  std::vector<RunningPsJob> running_;
  std::vector<const PsJobSpec*> fresh_;
  std::vector<Placement> placed_;
};

// The warm start both trainers run (c.imitate != "none"): the teacher (`auto`: the baseline with the
// best validation JCT in res.baseline_val_jct_s), its decisions on the first --il-traces training
// traces (more are generated past traces.train) recorded through hooks.replay(), then c.il_steps
// masked cross-entropy updates of `actor` (rows of row_size floats, `actions` outputs) at c.il_lr on
// batches of c.batch recorded steps (the actor's learning rate is set back to c.lr after).
// hooks.forward(parameters) gives the actor's padded logits for a row (the accuracy: the share of
// the last 10 batches' masked arg-max equal to the teacher's action; the chance level: what a
// uniform draw among the allowed actions scores). Then the imitated actor is taken into the model
// and validated (hooks.take_and_validate), saved as imitation.json and, when its validation JCT is
// the best so far, as best.json (hooks.save). Fills res's imitate_policy, il_* and appends one curve
// point per update (steps -il_steps + 1 .. 0).
struct ImitationHooks {
  std::function<std::unique_ptr<ImitationReplay>()> replay;
  std::function<learn::RowPredictor(const std::vector<float>&)> forward;
  // The actor's parameters and the teacher's name into the model; returns its validation JCT.
  std::function<double(const std::vector<float>&, const std::string&)> take_and_validate;
  std::function<void(const std::string& file)> save;  // the model at stage "imitation" as DIR/file
};
void imitation_warm_start(const HarmonyDrlConfig& c, const ClusterSpec& cluster, const SimConfig& sim,
                          const HarmonyTraces& traces, learn::MlpTrainerEngine& actor, int row_size, int actions,
                          const ImitationHooks& hooks, HarmonyDrlResult& res,
                          const std::function<void(const std::string&, long, long, const std::string&)>& report);

}  // namespace dmlkit::cluster
