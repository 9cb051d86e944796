// harmony-seq2seq's [A] wait target and imitation replay: a network whose pointer points at the
// wait key makes every new job wait (and one that does not places them); the wait target is offered
// before a job's first task only; the model file keeps it (meta defer) and refuses a bad value; the
// teacher's replay labels its servers and, with the wait target only, its held-back jobs.
#include <gtest/gtest.h>

#include <filesystem>

#include "cluster/model/harmony_job.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"
#include "cluster/train/harmony_seq2seq_imitation.h"
#include "core/error.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {
namespace {

PsJobSpec job(int harmony_type, int workers, int ps) {
  PsJobSpec s;
  s.harmony_type = harmony_type;
  s.type = find_ps_job_type(harmony_job_types()[harmony_type].basis);
  s.user_workers = workers;
  s.user_ps = ps;
  s.worker.gpus = 1;
  s.worker.cpus = 4;
  s.worker.mem_gb = 8;
  s.ps.cpus = 4;
  s.ps.mem_gb = 8;
  return s;
}

// All parameters 0 but the pointer's v (1) and the wait key (wait_key): every server's logit is
// v . tanh(0) = 0, the wait logit E tanh(wait_key).
S2sNet hand_built(float wait_key) {
  S2sNet n;
  n.shape = s2s_policy_shape(8, 2, 64, 64, true);
  n.parameters.assign(n.shape.parameter_count(), 0.0f);
  const size_t E = 8, kw = n.parameters.size() - E, v = kw - E;
  for (size_t k = 0; k < E; ++k) {
    n.parameters[v + k] = 1.0f;
    n.parameters[kw + k] = wait_key;
  }
  return n;
}

struct WaitFlags final : S2sStepSink {
  std::vector<int> flags, actions;
  void on_step(int, int servers, int, const float*, const float*, const float*, const unsigned char* mask,
               int action) override {
    flags.push_back(mask[servers]);
    actions.push_back(action);
  }
};

TEST(Seq2SeqWait, PointingAtTheWaitKeyMakesTheJobsWait) {
  const ClusterSpec cluster = ClusterSpec::homogeneous(4, 8);
  std::vector<PsJobSpec> specs = {job(0, 2, 1), job(3, 1, 1), job(5, 3, 0)};
  std::vector<const PsJobSpec*> fresh;
  for (const auto& s : specs) fresh.push_back(&s);
  {
    Seq2SeqPlacer placer(cluster, hand_built(2.0f), 1);
    WaitFlags sink;
    placer.set_sink(&sink);
    std::vector<Placement> out;
    placer.decide({}, fresh, out);
    for (const Placement& p : out) EXPECT_TRUE(p.empty());
    EXPECT_EQ(placer.stats().waited, 3);
    EXPECT_EQ(placer.stats().rolled_back, 0);
    EXPECT_EQ(sink.actions, (std::vector<int>{4, 4, 4}));  // index S: wait
  }
  {
    Seq2SeqPlacer placer(cluster, hand_built(-2.0f), 1);
    WaitFlags sink;
    placer.set_sink(&sink);
    std::vector<Placement> out;
    placer.decide({}, fresh, out);
    for (const Placement& p : out) EXPECT_FALSE(p.empty());
    EXPECT_EQ(placer.stats().waited, 0);
    // The wait target is offered at each job's first task only: 3 + 2 + 3 tasks.
    EXPECT_EQ(sink.flags, (std::vector<int>{1, 0, 0, 1, 0, 1, 0, 0}));
  }
}

TEST(Seq2SeqWait, ModelFileKeepsTheWaitTargetAndRefusesABadFlag) {
  Seq2SeqModel m;
  m.policy = hand_built(1.0f);
  const auto dir = std::filesystem::temp_directory_path() / "dmlkit-s2s-wait-test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "m.json").string();
  learn::save_model_file(path, s2s_model_file(m));
  const Seq2SeqModel back = load_s2s_model(path);
  EXPECT_TRUE(back.policy.shape.wait_target);
  EXPECT_EQ(back.policy.parameters, m.policy.parameters);
  learn::ModelFile f = s2s_model_file(m);
  f.meta["defer"] = "maybe";
  learn::save_model_file(path, f);
  try {
    (void)load_s2s_model(path);
    FAIL() << "no error";
  } catch (const Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("m.json"), std::string::npos) << w;
    EXPECT_NE(w.find("meta.defer"), std::string::npos) << w;
    EXPECT_EQ(w.find('\n'), std::string::npos) << w;
  }
  // Without the flag the file's parameters are one wait key too many.
  f.meta.erase("defer");
  learn::save_model_file(path, f);
  EXPECT_THROW((void)load_s2s_model(path), Error);
  std::filesystem::remove_all(dir);
}

TEST(Seq2SeqWait, ReplayLabelsTheTeachersServersAndItsWaitsOnlyWithTheWaitTarget) {
  const ClusterSpec cluster = ClusterSpec::homogeneous(3, 8);
  const PsJobSpec run = job(1, 2, 1), a = job(2, 2, 1), b = job(4, 1, 1);
  const std::vector<RunningPsJob> running = {{&run, Placement{Slice{0, 2, 2, 1}}}};
  const std::vector<const PsJobSpec*> fresh = {&a, &b};
  // The teacher: a's PS on server 2, its workers on servers 1 and 2; b waits.
  const std::vector<Placement> placed = {Placement{Slice{1, 1, 1, 0}, Slice{2, 1, 1, 1}}, Placement{}};
  for (bool wait : {false, true}) {
    const learn::AttnShape shape = s2s_policy_shape(8, 2, 12, 3, wait);
    S2sBoardReplay replay(shape, cluster);
    HarmonyImitationData d;
    replay.replay(running, fresh, placed, d);
    ASSERT_EQ(d.rows(), wait ? 4u : 3u);
    EXPECT_EQ(d.dropped_jobs, 0);
    EXPECT_EQ(d.actions, shape.outputs());
    ASSERT_EQ(d.masks.size(), d.rows() * static_cast<size_t>(shape.outputs()));
    EXPECT_EQ(d.labels[0], 2);  // the PS first
    EXPECT_EQ(d.labels[1], 1);  // then the workers, lowest server first
    EXPECT_EQ(d.labels[2], 2);
    for (size_t r = 0; r < d.rows(); ++r)
      EXPECT_EQ(d.masks[r * static_cast<size_t>(shape.outputs()) + static_cast<size_t>(d.labels[r])], 1) << r;
    if (wait) {
      EXPECT_EQ(d.labels[3], shape.wait_column());
      const auto flag = [&](size_t r) { return d.masks[r * static_cast<size_t>(shape.outputs()) + 3]; };
      EXPECT_EQ(flag(0), 1);  // a's first task
      EXPECT_EQ(flag(1), 0);
      EXPECT_EQ(flag(3), 1);
    }
  }
}

}  // namespace
}  // namespace dmlkit::cluster
