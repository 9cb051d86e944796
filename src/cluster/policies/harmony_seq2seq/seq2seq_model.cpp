// harmony-seq2seq's model file; see seq2seq_model.h.
#include "cluster/policies/harmony_seq2seq/seq2seq_model.h"

#include <algorithm>

#include "cluster/policies/harmony/model_lookup.h"
#include "core/error.h"

namespace dmlkit::cluster {

namespace {

learn::AttnShape base(int embed, int heads) {
  learn::AttnShape s;
  s.embed = embed;
  s.heads = heads;
  return s;
}
}  // namespace

learn::AttnShape s2s_policy_shape(int embed, int heads, int max_jobs, int max_servers, bool wait) {
  learn::AttnShape s = base(embed, heads);
  s.job_features = kJobFeatures;
  s.server_features = kServerFeatures;
  s.query_features = kQueryFeatures;
  s.head = learn::AttnHead::pointer;
  s.max_jobs = max_jobs;
  s.max_servers = max_servers;
  s.wait_target = wait;
  return s;
}

learn::AttnShape s2s_value_shape(int embed, int heads, int max_jobs, int max_servers) {
  learn::AttnShape s = s2s_policy_shape(embed, heads, max_jobs, max_servers);
  s.head = learn::AttnHead::value;
  return s;
}

learn::AttnShape s2s_reward_shape(int embed, int heads, int max_jobs) {
  learn::AttnShape s = base(embed, heads);
  s.job_features = kRewardFeatures;
  s.server_features = 0;
  s.query_features = 0;
  s.head = learn::AttnHead::per_job;
  s.max_jobs = max_jobs;
  s.max_servers = 1;
  return s;
}

std::string s2s_model_path(const std::string& name_or_path) {
  return bundled_model_path(name_or_path, "harmony-seq2seq.model");
}

Seq2SeqModel load_s2s_model(const std::string& name_or_path) {
  const std::string path = s2s_model_path(name_or_path);
  const learn::ModelFile f = learn::load_model_file(path);
  if (f.kind != "harmony-seq2seq")
    throw Error(path, 0, "kind", "not a harmony-seq2seq model (kind '" + f.kind + "')");
  Seq2SeqModel m;
  m.path = path;
  m.meta = f.meta;
  auto net = [&](const std::string& name, learn::AttnShape shape, bool required) {
    S2sNet n;
    auto it = f.extra.find(name);
    if (it == f.extra.end()) {
      if (required) throw Error(path, 0, "extra." + name, "missing");
      return n;
    }
    try {
      shape.validate();
    } catch (const Error& e) {
      throw Error(path, 0, "meta", std::string("bad network size: ") + e.what());
    }
    if (it->second.size() != shape.parameter_count())
      throw Error(path, 0, "extra." + name,
                  std::to_string(it->second.size()) + " parameters, the sizes in meta need " +
                      std::to_string(shape.parameter_count()));
    n.shape = shape;
    n.parameters = it->second;
    return n;
  };
  const int embed = model_meta_int(f, path, "embed"), heads = model_meta_int(f, path, "heads");
  const auto defer = f.meta.find("defer");
  if (defer != f.meta.end() && defer->second != "on" && defer->second != "off")
    throw Error(path, 0, "meta.defer", "must be on or off, got '" + defer->second + "'");
  const bool wait = defer != f.meta.end() && defer->second == "on";
  m.policy = net("policy", s2s_policy_shape(embed, heads, 64, 64, wait), true);
  m.value = net("value", s2s_value_shape(embed, heads, 64, 64), false);
  if (f.extra.count("reward")) {
    m.reward = net(
        "reward", s2s_reward_shape(model_meta_int(f, path, "rm_embed"), model_meta_int(f, path, "rm_heads"), 64), true);
    auto sc = f.extra.find("speed_scale");
    if (sc == f.extra.end() || sc->second.size() != 2 * kS2sTypes)
      throw Error(path, 0, "extra.speed_scale", "missing or not 16 values");
    m.speed_scale = sc->second;
  }
  return m;
}

learn::ModelFile s2s_model_file(const Seq2SeqModel& m) {
  learn::ModelFile f;
  f.kind = "harmony-seq2seq";
  f.meta = m.meta;
  f.meta["embed"] = std::to_string(m.policy.shape.embed);
  f.meta["heads"] = std::to_string(m.policy.shape.heads);
  if (m.policy.shape.wait_target)
    f.meta["defer"] = "on";
  else
    f.meta.erase("defer");  // files without the wait target stay as they were
  f.extra["policy"] = m.policy.parameters;
  if (!m.value.empty()) f.extra["value"] = m.value.parameters;
  if (!m.reward.empty()) {
    f.meta["rm_embed"] = std::to_string(m.reward.shape.embed);
    f.meta["rm_heads"] = std::to_string(m.reward.shape.heads);
    f.extra["reward"] = m.reward.parameters;
    f.extra["speed_scale"] = m.speed_scale;
  }
  return f;
}

S2sSpeedPredictor::S2sSpeedPredictor(const S2sNet& net, std::vector<float> speed_scale, int servers)
    : net_(net.shape, net.parameters), scale_(std::move(speed_scale)), servers_(servers) {}

void S2sSpeedPredictor::predict(std::span<const S2sPlacedJob> jobs, std::vector<double>& speeds) {
  speeds.assign(jobs.size(), 0.0);
  if (jobs.empty()) return;
  s2s_reward_tokens(jobs, servers_, tokens_);
  const std::vector<float>& out = net_.run(static_cast<int>(jobs.size()), 0, 0, tokens_.data(), nullptr, nullptr);
  for (size_t j = 0; j < jobs.size(); ++j)
    speeds[j] = std::max(0.0, static_cast<double>(out[j])) * scale_[static_cast<size_t>(s2s_scale_index(jobs[j]))];
}

}  // namespace dmlkit::cluster
