// harmony-seq2seq (cluster/policies/harmony_seq2seq/) and the all-reduce job kind: the ring
// all-reduce speed on hand-built placements, the reward model's co-location tokens, masks that
// never place a task on a server without room, one network deciding on clusters and job counts of
// different sizes, and model files that fail with a one-line error naming the file and field; the
// [A] wait target and imitation replay: a network whose pointer points at the wait key makes every
// new job wait (and one that does not places them); the wait target is offered before a job's first
// task only, and not on an empty cluster; the model file keeps it (meta defer) and refuses a bad value; the teacher's replay
// labels its servers and, with the wait target only, its held-back jobs; [A] whole-job exploration
// puts every task of an explored job on one server with room for it (occupied ones only with
// `occupied`), never a full one.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cluster/model/harmony_job.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"
#include "cluster/policies/harmony_seq2seq/seq2seq_placer.h"
#include "cluster/speed/allreduce_speed.h"
#include "cluster/train/harmony_seq2seq_imitation.h"
#include "cluster/workload/experiment.h"
#include "cluster/workload/ps_workload.h"
#include "core/error.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {
namespace {

PsJobSpec seq2seq_job(int harmony_type, int workers, int ps, bool allreduce = false) {
  PsJobSpec s;
  s.harmony_type = harmony_type;
  s.type = find_ps_job_type(harmony_job_types()[harmony_type].basis);
  s.user_workers = workers;
  s.user_ps = allreduce ? 0 : ps;
  s.allreduce = allreduce;
  s.worker.gpus = 1;
  s.worker.cpus = 4;
  s.worker.mem_gb = 8;
  s.ps.cpus = 4;
  s.ps.mem_gb = 8;
  return s;
}

Placement slices(std::initializer_list<std::pair<int, int>> server_workers) {
  Placement p;
  for (auto [m, w] : server_workers) p.push_back(Slice{m, w, w, 0});
  return p;
}

TEST(AllReduceSpeed, RingOnHandBuiltPlacements) {
  const PsJobSpec j = seq2seq_job(find_harmony_job_type("vgg-16"), 4, 0, true);
  const PsJobType& t = j.job_type();
  // One worker: compute only.
  EXPECT_DOUBLE_EQ(allreduce_samples_per_s(j, 1, nullptr), 1.0 / t.local_compute_s);
  // Four workers on one server: the ring's four hops share the intra-server bandwidth.
  const Placement one = slices({{0, 4}});
  const double comm_one = 2.0 * 3 / 4 * t.model_mb / (t.intra_bw_MBps / 4);
  EXPECT_NEAR(allreduce_samples_per_s(j, 4, &one), 4 / (t.local_compute_s + comm_one), 1e-9);
  // 2 + 2 on two servers: the slower of the NIC hop and the two hops inside each server.
  const Placement two = slices({{0, 2}, {3, 2}});
  const double bw = std::min(t.inter_bw_MBps, t.intra_bw_MBps / 2);
  EXPECT_NEAR(allreduce_samples_per_s(j, 4, &two), 4 / (t.local_compute_s + 2.0 * 3 / 4 * t.model_mb / bw), 1e-9);
  // 1 + 1 + 1 + 1: the NIC hop only.
  const Placement four = slices({{0, 1}, {1, 1}, {2, 1}, {3, 1}});
  EXPECT_NEAR(allreduce_samples_per_s(j, 4, &four),
              4 / (t.local_compute_s + 2.0 * 3 / 4 * t.model_mb / t.inter_bw_MBps), 1e-9);
  EXPECT_EQ(allreduce_samples_per_s(j, 0, &one), 0.0);
  // The default placement is the balanced one on ceil(w / 4) servers.
  EXPECT_DOUBLE_EQ(allreduce_samples_per_s(j, 4, nullptr), allreduce_samples_per_s(j, 4, &one));
}

TEST(AllReduceWorkload, FractionMakesWorkerOnlyJobsAndZeroKeepsTheTraces) {
  PsWorkloadSpec s;
  s.catalogue = "harmony";
  s.num_jobs = 40;
  s.arrivals = "poisson";
  const Workload before = ps_workload(s, 5, "");
  s.allreduce_fraction = 0.5;
  const Workload mixed = ps_workload(s, 5, "");
  int ar = 0;
  for (size_t i = 0; i < mixed.jobs.size(); ++i) {
    const PsJobSpec& m = *mixed.jobs[i].ps;
    const PsJobSpec& b = *before.jobs[i].ps;
    EXPECT_EQ(m.harmony_type, b.harmony_type);  // the same jobs, some now all-reduce
    EXPECT_EQ(m.user_workers, b.user_workers);
    if (m.allreduce) {
      ++ar;
      EXPECT_EQ(m.user_ps, 0);
      EXPECT_EQ(mixed.jobs[i].name.substr(0, 2), "ar");
    }
  }
  EXPECT_GT(ar, 5);
  EXPECT_LT(ar, 35);
  s.allreduce_fraction = 0;
  const Workload again = ps_workload(s, 5, "");
  for (size_t i = 0; i < again.jobs.size(); ++i) EXPECT_EQ(again.jobs[i].name, before.jobs[i].name);
}

TEST(Seq2SeqBoard, RewardTokensCountTheOtherJobsBesideEachJob) {
  // Job A (type 1, PS): 2 workers + 1 PS on server 0; job B (type 5, all-reduce): 1 worker on 0, 2 on 1.
  std::vector<S2sPlacedJob> jobs(2);
  jobs[0] = {1, false, 2, 1, {{0, {2, 1}}}};
  jobs[1] = {5, true, 3, 0, {{0, {1, 0}}, {1, {2, 0}}}};
  std::vector<float> t;
  s2s_reward_tokens(jobs, 2, t);
  ASSERT_EQ(t.size(), 2u * kRewardFeatures);
  const float* a = t.data();
  const float* b = t.data() + kRewardFeatures;
  EXPECT_EQ(a[1], 1.0f);
  EXPECT_EQ(a[kS2sTypes], 0.0f);
  EXPECT_EQ(b[kS2sTypes], 1.0f);
  EXPECT_FLOAT_EQ(a[kS2sTypes + 5], 1.0f);  // both workers share the server of A's only PS
  const float* a_mean = a + kS2sTypes + 7;
  const float* b_mean = b + kS2sTypes + 7;
  const float* b_max = b_mean + kS2sTypes;
  EXPECT_FLOAT_EQ(a_mean[5], 1.0f / 4);                   // one task of type 5 beside all of A's tasks
  EXPECT_FLOAT_EQ(b_mean[1], (1.0f / 3) * 3.0f / 4);      // a third of B's tasks sit beside A's three
  EXPECT_FLOAT_EQ(b_max[1], 3.0f / 4);
  EXPECT_FLOAT_EQ(a[kS2sTypes + 6], 1.0f / 8);            // one other task beside A on average
}

Seq2SeqModel random_model(uint64_t seed) {
  Rng rng(seed);
  Seq2SeqModel m;
  m.policy.shape = s2s_policy_shape(16, 2, 64, 64);
  m.policy.parameters = learn::attn_initial_parameters(m.policy.shape, rng);
  return m;
}

// Sum of the placed tasks' demands on every server stays within its capacity.
void expect_within_capacity(const ClusterSpec& cluster, const std::vector<std::pair<const PsJobSpec*, Placement>>& all) {
  std::vector<double> gpus(cluster.num_servers(), 0), cpus(cluster.num_servers(), 0);
  for (const auto& [spec, p] : all)
    for (const Slice& s : p) {
      gpus[s.server] += s.workers * spec->worker.gpus + s.ps * spec->ps.gpus;
      cpus[s.server] += s.workers * spec->worker.cpus + s.ps * spec->ps.cpus;
    }
  for (int m = 0; m < cluster.num_servers(); ++m) {
    EXPECT_LE(gpus[m], cluster.servers[m].gpus) << "server " << m;
    EXPECT_LE(cpus[m], cluster.servers[m].cpus) << "server " << m;
  }
}

TEST(Seq2SeqPlacer, MaskNeverPlacesATaskOnAServerWithoutRoom) {
  const ClusterSpec cluster = ClusterSpec::homogeneous(4, 4);  // 16 GPUs: most decisions overflow
  for (uint64_t seed : {1u, 2u, 3u}) {
    Seq2SeqPlacer placer(cluster, random_model(seed).policy, seed);
    placer.set_select_max(false);
    placer.set_epsilon(seed == 3 ? 0.5 : 0.0);  // heuristic steps are masked too
    std::vector<PsJobSpec> specs;
    for (int i = 0; i < 12; ++i) specs.push_back(seq2seq_job(i % 8, 1 + i % 4, 1 + i % 2, i % 3 == 0));
    std::vector<S2sRunningJob> running;
    std::vector<std::pair<const PsJobSpec*, Placement>> all;
    long placed = 0, waiting = 0;
    for (size_t first = 0; first < specs.size(); first += 4) {
      std::vector<const PsJobSpec*> fresh;
      for (size_t i = first; i < first + 4; ++i) fresh.push_back(&specs[i]);
      std::vector<Placement> out;
      placer.decide(running, fresh, out);
      for (size_t k = 0; k < fresh.size(); ++k) {
        if (out[k].empty()) {
          ++waiting;
          continue;
        }
        ++placed;
        int w = 0, p = 0;
        for (const Slice& s : out[k]) {
          w += s.workers;
          p += s.ps;
        }
        EXPECT_EQ(w, fresh[k]->user_workers);  // gang: all or nothing
        EXPECT_EQ(p, fresh[k]->user_ps);
        running.push_back({fresh[k], out[k]});
        all.push_back({fresh[k], out[k]});
      }
      expect_within_capacity(cluster, all);
    }
    EXPECT_GT(placed, 0);
    EXPECT_GT(waiting, 0);  // the cluster filled up: the mask was binding
    EXPECT_GT(placer.stats().rolled_back, 0);
  }
}

TEST(Seq2SeqPlacer, OneNetworkDecidesOnDifferentClusterAndJobCounts) {
  const Seq2SeqModel m = random_model(9);
  for (auto [servers, jobs] : {std::pair{6, 3}, std::pair{50, 20}, std::pair{2, 7}}) {
    const ClusterSpec cluster = ClusterSpec::homogeneous(servers, 8);
    Seq2SeqPlacer placer(cluster, m.policy, 1);
    std::vector<PsJobSpec> specs;
    for (int i = 0; i < jobs; ++i) specs.push_back(seq2seq_job(i % 8, 1 + i % 3, 1, i % 2 == 1));
    std::vector<const PsJobSpec*> fresh;
    for (const auto& s : specs) fresh.push_back(&s);
    std::vector<Placement> out;
    placer.decide({}, fresh, out);
    ASSERT_EQ(out.size(), fresh.size());
    std::vector<std::pair<const PsJobSpec*, Placement>> all;
    int placed = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      if (out[k].empty()) continue;
      ++placed;
      all.push_back({fresh[k], out[k]});
      for (const Slice& s : out[k]) EXPECT_LT(s.server, servers);
    }
    expect_within_capacity(cluster, all);
    EXPECT_GT(placed, 0) << servers << " servers";
    if (servers >= 6) {
      EXPECT_EQ(placed, jobs) << servers << " servers";  // room for all of them
    }
  }
}

// The bundled model (trained on harmony-testbed's 6 servers) runs unchanged on harmony-testbed and
// on harmony-50 (fewer jobs here, to keep the test short), and every job finishes.
TEST(Seq2SeqModel, BundledModelRunsOnTheTestbedAndOnFiftyServers) {
  const std::string data = std::string(DMLKIT_SOURCE_DIR) + "/data";
  const std::string experiments = std::string(DMLKIT_SOURCE_DIR) + "/experiments";
  for (const char* name : {"harmony-testbed", "harmony-50", "harmony-testbed-mixed"}) {
    Experiment e = load_experiment(name, experiments);
    e.seeds = {1};
    e.policies = {"harmony-seq2seq"};
    e.workload.num_jobs = std::min(e.workload.num_jobs, 60);
    const auto runs = run_experiment(e, data, {}, 1);
    ASSERT_EQ(runs.size(), 1u) << name;
    EXPECT_EQ(runs[0].result.jobs.size(), static_cast<size_t>(e.workload.num_jobs)) << name;
    for (const auto& j : runs[0].result.jobs) EXPECT_TRUE(j.finished()) << name;
  }
}

TEST(Seq2SeqModel, BadFilesAreOneLineErrorsNamingFileAndField) {
  const auto dir = std::filesystem::temp_directory_path() / "dmlkit-s2s-model-test";
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string p = (dir / name).string();
    std::ofstream(p) << text;
    return p;
  };
  auto message = [](const std::string& path) {
    try {
      (void)load_s2s_model(path);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = message((dir / "missing.json").string());
  EXPECT_NE(missing.find("missing.json"), std::string::npos) << missing;
  const std::string corrupt = message(write("corrupt.json", "{\"kind\": \"harmony-seq2seq\", \"extra\": {"));
  EXPECT_NE(corrupt.find("corrupt.json"), std::string::npos) << corrupt;
  EXPECT_EQ(corrupt.find('\n'), std::string::npos) << corrupt;
  // A good file with a network cut short.
  Seq2SeqModel m = random_model(1);
  m.policy.parameters.resize(10);
  learn::save_model_file((dir / "short.json").string(), s2s_model_file(m));
  const std::string cut = message((dir / "short.json").string());
  EXPECT_NE(cut.find("extra.policy"), std::string::npos) << cut;
  // Another kind of model.
  learn::ModelFile other;
  other.kind = "harmony";
  learn::save_model_file((dir / "other.json").string(), other);
  EXPECT_NE(message((dir / "other.json").string()).find("kind"), std::string::npos);
  std::filesystem::remove_all(dir);
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
  std::vector<PsJobSpec> specs = {seq2seq_job(0, 2, 1), seq2seq_job(3, 1, 1), seq2seq_job(5, 3, 0)};
  std::vector<const PsJobSpec*> fresh;
  for (const auto& s : specs) fresh.push_back(&s);
  const PsJobSpec other = seq2seq_job(1, 1, 1);
  const std::vector<S2sRunningJob> running = {{&other, Placement{Slice{3, 1, 1, 1}}}};
  {
    Seq2SeqPlacer placer(cluster, hand_built(2.0f), 1);
    WaitFlags sink;
    placer.set_sink(&sink);
    std::vector<Placement> out;
    placer.decide(running, fresh, out);
    for (const Placement& p : out) EXPECT_TRUE(p.empty());
    EXPECT_EQ(placer.stats().waited, 3);
    EXPECT_EQ(placer.stats().rolled_back, 0);
    EXPECT_EQ(sink.actions, (std::vector<int>{4, 4, 4}));  // index S: wait
    // On an empty cluster the first job is placed (waiting is not offered), the others then wait.
    out.clear();
    placer.decide({}, fresh, out);
    EXPECT_FALSE(out[0].empty());
    EXPECT_TRUE(out[1].empty());
    EXPECT_TRUE(out[2].empty());
    EXPECT_EQ(placer.stats().waited, 5);
  }
  {
    Seq2SeqPlacer placer(cluster, hand_built(-2.0f), 1);
    WaitFlags sink;
    placer.set_sink(&sink);
    std::vector<Placement> out;
    placer.decide(running, fresh, out);
    for (const Placement& p : out) EXPECT_FALSE(p.empty());
    EXPECT_EQ(placer.stats().waited, 0);
    // The wait target is offered at each job's first task only: 3 + 2 + 3 tasks.
    EXPECT_EQ(sink.flags, (std::vector<int>{1, 0, 0, 1, 0, 1, 0, 0}));
  }
}

// [A] Whole-job exploration (JobExploration): with epsilon 1 every new job that fits whole on a
// candidate server goes there with all its tasks (the steps record those pointer choices); with
// `occupied` only servers that hold another job's task are candidates, never a full one; a job
// with no candidate is left to the network (here: it waits).
TEST(Seq2SeqJobExploration, PlacesWholeJobsOnOneServerWithRoomNeverOnAFullOne) {
  const ClusterSpec cluster = ClusterSpec::homogeneous(4, 8);
  const PsJobSpec small = seq2seq_job(1, 1, 1), big = seq2seq_job(2, 8, 0);
  // Server 1 is full (8 GPUs), server 3 holds one small job; 0 and 2 are empty.
  const std::vector<S2sRunningJob> running = {{&big, Placement{Slice{1, 8, 8, 0}}},
                                              {&small, Placement{Slice{3, 1, 1, 1}}}};
  std::vector<PsJobSpec> specs = {seq2seq_job(0, 2, 1), seq2seq_job(3, 3, 1), seq2seq_job(5, 4, 2),
                                  seq2seq_job(6, 1, 1)};
  std::vector<const PsJobSpec*> fresh;
  for (const auto& s : specs) fresh.push_back(&s);
  for (const JobExploration mode : {JobExploration::occupied, JobExploration::any}) {
    bool landed_on_empty = false;
    for (uint64_t seed = 1; seed <= 8; ++seed) {
      Seq2SeqPlacer placer(cluster, hand_built(2.0f), seed);  // the network always waits
      placer.set_job_exploration(mode);
      placer.set_epsilon(1.0);
      WaitFlags sink;
      placer.set_sink(&sink);
      std::vector<Placement> out;
      placer.decide(running, fresh, out);
      std::vector<int> gpus_used = {0, 8, 0, 1};
      std::vector<std::pair<const PsJobSpec*, Placement>> all = {{&big, running[0].placement},
                                                                 {&small, running[1].placement}};
      size_t step = 0;
      long placed_tasks = 0;
      for (size_t k = 0; k < fresh.size(); ++k) {
        if (out[k].empty()) {
          // No candidate: the network decided, and it waits (its first step is the wait target).
          ASSERT_LT(step, sink.actions.size());
          EXPECT_EQ(sink.actions[step], 4);
          ++step;
          continue;
        }
        ASSERT_EQ(out[k].size(), 1u) << "job " << k << " is split";  // whole on one server
        const Slice& s = out[k][0];
        EXPECT_EQ(s.workers, fresh[k]->user_workers);
        EXPECT_EQ(s.ps, fresh[k]->user_ps);
        EXPECT_NE(s.server, 1) << "placed on the full server";
        if (mode == JobExploration::occupied) {
          EXPECT_GT(gpus_used[s.server], 0) << "an empty server";
        }
        if (gpus_used[s.server] == 0) landed_on_empty = true;
        gpus_used[s.server] += s.workers;
        EXPECT_LE(gpus_used[s.server], 8);
        // The steps are the pointer choices that build it.
        for (int t = 0; t < s.workers + s.ps; ++t, ++step) {
          ASSERT_LT(step, sink.actions.size());
          EXPECT_EQ(sink.actions[step], s.server);
        }
        placed_tasks += s.workers + s.ps;
        all.push_back({fresh[k], out[k]});
      }
      EXPECT_EQ(step, sink.actions.size());
      EXPECT_EQ(placer.stats().explored, placed_tasks);
      EXPECT_GT(placed_tasks, 0);
      expect_within_capacity(cluster, all);
    }
    EXPECT_EQ(landed_on_empty, mode == JobExploration::any);
  }
  // Epsilon 0: no exploration, the network's decisions (all wait).
  Seq2SeqPlacer placer(cluster, hand_built(2.0f), 1);
  placer.set_job_exploration(JobExploration::occupied);
  std::vector<Placement> out;
  placer.decide(running, fresh, out);
  for (const Placement& p : out) EXPECT_TRUE(p.empty());
  EXPECT_EQ(placer.stats().explored, 0);
  EXPECT_EQ(parse_job_exploration("any", "x"), JobExploration::any);
  try {
    parse_job_exploration("jobs", "harmony-seq2seq");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--job-exploration"), std::string::npos);
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
  const PsJobSpec run = seq2seq_job(1, 2, 1), a = seq2seq_job(2, 2, 1), b = seq2seq_job(4, 1, 1);
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
