// A small attention network over two variable-length sets (jobs and servers) for the learned
// placers (Harmony's journal design, cluster/policies/harmony_seq2seq/): the sizes of the sets are
// not part of the parameters, so one trained network runs on any number of jobs and servers.
//
//   jobs  X_j (J x dj) -> e = ReLU(X_j Wj + bj)                       (job embeddings, E wide)
//                      -> h = e + MHA(e)          multi-head self-attention over the J jobs, H heads,
//                                                 the computation of torch::nn::MultiheadAttention
//                                                 (in_proj [3E x E] + bias, out_proj [E x E] + bias)
//                      -> g = h + ReLU(h W1 + b1)                      (the encoder's output, J x E)
//   servers X_s (S x ds) -> s = ReLU(X_s Ws + bs)                      (server embeddings, S x E)
// and one of three heads:
//   pointer  (the actor's decoder step for one task of job q, with extra query features x_q):
//            u = ReLU([g_q, mean_j g, x_q] Wu + bu);  logit_m = v . tanh(s_m Wk + u Wq)   (S logits,
//            a pointer over the servers, Vinyals et al.'s additive attention); with wait_target [A]
//            one more logit after them, logit_S = v . tanh(k_wait + u Wq), where k_wait is a learned
//            key vector (E values) standing for "this job waits for the next interval"
//   value    V = w . ReLU([mean_j g, mean_m s] Wv + bv) + c                 (one number, the critic)
//   per_job  y_j = w . ReLU([g_j, mean g] Wv + bv) + c                        (J numbers: a seq2seq
//            regression, the reward model's per-job speed; ds may be 0 there)
// Parameters (one flat float vector, in this order; matrices [out][in] row-major as torch's Linear):
//   Wj [E][dj], bj [E]; in_proj [3E][E], in_bias [3E]; out_proj [E][E], out_bias [E]; W1 [E][E], b1 [E];
//   if ds > 0: Ws [E][ds], bs [E];
//   pointer: Wu [E][2E+dq], bu [E], Wk [E][E], Wq [E][E], v [E]; with wait_target: k_wait [E]
//   value:   Wv [E][2E], bv [E], w [E], c [1]
//   per_job: Wv [E][2E], bv [E], w [E], c [1]
// Initial values: W ~ U(-1/sqrt(in), 1/sqrt(in)) (torch's Linear default bound), biases 0.
//
// For training (the libtorch plugin's AttnTrainer implements learn/torch_plugin.h's
// MlpTrainerEngine, so learn/actor_critic.h, learn/fifo_replay.h and learn/regression.h take it
// unchanged) a sample is one flat row of inputs() floats, padded to max_jobs / max_servers:
//   [J, S, q, X_j (max_jobs x dj), X_s (max_servers x ds), x_q (dq)]
// and outputs() = max_servers (pointer; + 1 with wait_target, the wait logit in the last column
// whatever S is), 1 (value) or max_jobs (per_job). max_jobs / max_servers
// are only the padding of that row: they can change between runs without touching the parameters.
// AttnForward runs one sample in plain C++ (float32, no libtorch) at decision time; the plugin runs
// the same computation on padded batches with ATen and autograd (tests/learn: the two agree).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "core/rng.h"

namespace dmlkit::learn {

// The pointer's additive-attention logit of one key: sum_k v[k] tanh(key[k] + uq[k]), in k order
// (AttnForward and AttnPointerIncremental both use it, so their logits agree bit for bit). The tanh
// is fdlibm's, eight at a time (learn/fdlibm_tanh.h: glibc's tanhf bit for bit up to 2.36).
float additive_logit(const float* v, const float* key, const float* uq, int E);

enum class AttnHead { pointer = 0, value = 1, per_job = 2 };

struct AttnShape {
  int job_features = 1;     // dj
  int server_features = 0;  // ds (0: no server set; per_job head only)
  int query_features = 0;   // dq (pointer head)
  int embed = 32;           // E
  int heads = 4;            // H (E % H == 0)
  AttnHead head = AttnHead::pointer;
  bool wait_target = false;  // [A] pointer head: the extra "wait" target (above)
  int max_jobs = 32;     // padding of a flat row (not part of the parameters)
  int max_servers = 16;  // ditto

  // Throws dmlkit::Error naming the field when a size is not valid.
  void validate() const;
  size_t parameter_count() const;
  // Tensor sizes in parameter order (matrices {out, in}, vectors {n}).
  std::vector<std::vector<int>> parameter_sizes() const;
  int inputs() const { return 3 + max_jobs * job_features + max_servers * server_features + query_features; }
  int outputs() const {
    return head == AttnHead::pointer ? max_servers + (wait_target ? 1 : 0) : head == AttnHead::value ? 1 : max_jobs;
  }
  // The wait logit's column in a padded output row (outputs() - 1); in run()'s S + 1 logits it is S.
  int wait_column() const { return max_servers; }
  // Offsets in a flat row.
  int jobs_at() const { return 3; }
  int servers_at() const { return 3 + max_jobs * job_features; }
  int query_at() const { return servers_at() + max_servers * server_features; }
};

std::string attn_head_name(AttnHead h);
// "pointer", "value" or "per_job"; throws Error(.., field, ..) otherwise.
AttnHead parse_attn_head(const std::string& name, const std::string& field);

std::vector<float> attn_initial_parameters(const AttnShape& shape, Rng& rng);

// Writes one flat row (shape.inputs() floats; the padding is zero). Throws Error when J > max_jobs,
// S > max_servers or q is not a job.
void attn_encode(const AttnShape& shape, int jobs, int servers, int query, const float* job_x, const float* server_x,
                 const float* query_x, float* row);

// The forward pass of one sample in plain C++. Holds its scratch buffers (not thread-safe: one per
// thread).
class AttnForward {
 public:
  AttnForward() = default;
  AttnForward(const AttnShape& shape, std::vector<float> parameters);
  const AttnShape& shape() const { return shape_; }
  const std::vector<float>& parameters() const { return params_; }
  // Outputs for J jobs, S servers and query job q: S logits (pointer; S + 1 with wait_target, the
  // wait logit last), 1 value or J outputs (per_job); valid until the next call.
  const std::vector<float>& run(int jobs, int servers, int query, const float* job_x, const float* server_x,
                                const float* query_x);
  // The same from a flat row (attn_encode's layout); outputs padded to shape().outputs() with 0 (the
  // wait logit in column wait_column()).
  const std::vector<float>& run_row(const float* row);

 private:
  void linear(const float* w, const float* b, const float* x, int in, int out, float* y) const;
  AttnShape shape_;
  std::vector<float> params_;
  std::vector<float> e_, qkv_, att_, ctx_, h_, g_, s_, tmp_, pool_, u_, uq_, out_, padded_;
};

}  // namespace dmlkit::learn
