// harmony-seq2seq's trained networks and their model file (learn/model_file.h, kind
// "harmony-seq2seq"; the attention networks' parameters are stored as `extra` arrays, their sizes
// in `meta`, since their count does not depend on the numbers of jobs or servers):
//   policy  the actor: learn/attn_net.h with the pointer head over the servers (meta defer = on:
//           with the [A] wait target, learn::AttnShape::wait_target; absent or off: without)
//   value   the critic: the same encoder with the value head (optional)
//   reward  the seq2seq reward model: the job encoder with the per-job head; input the placed jobs'
//           tokens (seq2seq_board.h, s2s_reward_tokens), output each job's speed as a share of its
//           (type, kind)'s largest speed seen in the samples (extra "speed_scale", 16 values: the
//           eight types' PS jobs, then their all-reduce jobs) [A]
#pragma once
#include <map>
#include <span>
#include <string>
#include <vector>

#include "cluster/policies/harmony_seq2seq/seq2seq_board.h"
#include "learn/attn_net.h"
#include "learn/model_file.h"

namespace dmlkit::cluster {

struct S2sNet {
  learn::AttnShape shape;
  std::vector<float> parameters;
  bool empty() const { return parameters.empty(); }
};

struct Seq2SeqModel {
  std::string path;
  S2sNet policy, value, reward;
  std::vector<float> speed_scale;  // 2 x 8, samples/s
  std::map<std::string, std::string> meta;
};

// The shapes (padding max_jobs / max_servers as given).
learn::AttnShape s2s_policy_shape(int embed, int heads, int max_jobs, int max_servers, bool wait = false);
learn::AttnShape s2s_value_shape(int embed, int heads, int max_jobs, int max_servers);
learn::AttnShape s2s_reward_shape(int embed, int heads, int max_jobs);

// A bundled model's name (data/models/NAME.json) or a path.
std::string s2s_model_path(const std::string& name_or_path);
// Throws Error(file, 0, field, ...) on a missing or corrupt file or a network whose parameter count
// does not match its shape.
Seq2SeqModel load_s2s_model(const std::string& name_or_path);
learn::ModelFile s2s_model_file(const Seq2SeqModel& m);

// The reward model at run time: predicted speeds (samples/s) of any number of placed jobs.
class S2sSpeedPredictor {
 public:
  S2sSpeedPredictor() = default;
  S2sSpeedPredictor(const S2sNet& net, std::vector<float> speed_scale, int servers);
  void predict(std::span<const S2sPlacedJob> jobs, std::vector<double>& speeds);

 private:
  learn::AttnForward net_;
  std::vector<float> scale_, tokens_;
  int servers_ = 0;
};

}  // namespace dmlkit::cluster
