// The pointer head of learn/attn_net.h for a sequence of calls whose inputs change in a few rows at
// a time: harmony-seq2seq's decoder (cluster/policies/harmony_seq2seq/seq2seq_placer.h) runs one
// inference per task, and between two tasks only the current job's token, the token of the server
// that got the task (and, when the decoder moves to the next job, the tokens of the servers the
// previous job is on) change.
//
// Exact: every logit it computes equals AttnForward::run's bit for bit (tests/learn: same float
// operations in the same order; only work whose inputs did not change is skipped). What it keeps
// between calls, and when it recomputes it:
//   per job row j     (its input x_j compared bitwise with the cached copy) the embedding e_j and
//                     the q/k/v projections: recomputed only when x_j changed;
//   per (head, a, b)  the score q_a . k_b and exp(score - row max): the score when row a or b
//                     changed; the exp when the score or the row's max changed. Every query row's
//                     softmax sum, context, out-projection, residual MLP and the mean pool are
//                     recomputed whenever any job row changed: a changed key enters every row's
//                     softmax, so nothing else of them can be reused exactly;
//   per server row m  the embedding s_m and its key projection s_m Wk: only when its input changed;
//   the pointer       u, u Wq and the S logits every call (u depends on the pool, which changes
//                     with any job row); with a mask, only the allowed servers' logits are
//                     computed (the others are left 0: a masked softmax never reads them); servers
//                     whose tokens are equal bit for bit (e.g. the idle ones) share one
//                     computation, since equal tokens give equal keys and equal logits (found
//                     through a hash table of the tokens); the tanh is additive_logit's
//                     (learn/fdlibm_tanh.h, eight lanes at a time).
// A change of the job count J drops the score cache (its entries are indexed by position). The
// matrix-vector products run with the weights transposed so that the compiler vectorises across
// the outputs, and the softmax, context and scores across blocks of 8 query rows (keys and values
// in order within each lane), each output still accumulated in the original order (no FMA
// contraction: the build targets no FMA instruction set, so the products are rounded as in
// AttnForward). No allocation once the capacities reached the largest J and S seen.
#pragma once
#include <cstdint>
#include <vector>

#include "learn/attn_net.h"

namespace dmlkit::learn {

class AttnPointerIncremental {
 public:
  struct Stats {
    long calls = 0;
    long job_rows = 0;     // job rows whose embedding and q/k/v were recomputed
    long server_rows = 0;  // server rows whose embedding and key were recomputed
    long scores = 0;       // attention scores recomputed (per head)
    long exps = 0;         // softmax exponentials recomputed
    long logits = 0;       // logits computed (a server whose token equals another's shares its logit)
  };

  AttnPointerIncremental() = default;
  // Throws dmlkit::Error when the shape is not a pointer head's or the parameters do not fit it.
  AttnPointerIncremental(const AttnShape& shape, const std::vector<float>& parameters);
  const AttnShape& shape() const { return shape_; }
  // As AttnForward::run for the pointer head: S logits for J jobs and query job q (S + 1 with the
  // shape's wait_target, the wait logit last). With mask (S flags; S + 1 with wait_target), the
  // logits whose flag is 0 are not computed (0). Valid until the next call.
  const std::vector<float>& run(int jobs, int servers, int query, const float* job_x, const float* server_x,
                                const float* query_x, const unsigned char* mask = nullptr);
  // Forgets every cached row (the next call recomputes everything).
  void reset();
  const Stats& stats() const { return stats_; }

 private:
  void reserve_jobs(int jobs);
  void reserve_servers(int servers);
  void attention(int jobs, bool all);

  AttnShape shape_;
  // Transposed weights ([in][out]) and biases.
  std::vector<float> wj_, bj_, win_, bin_, wout_, bout_, w1_, b1_, ws_, bs_, wu_, bu_, wk_, wq_, v_, kwait_;
  int cap_jobs_ = 0, cap_servers_ = 0, last_jobs_ = -1;
  std::vector<float> xj_, e_, qkv_;              // per job row: input, embedding, q/k/v
  std::vector<float> qt_;                        // the queries transposed: [E][a] (stride cap_jobs_)
  std::vector<unsigned char> job_ok_, changed_;  // cached row valid; row changed in this call
  std::vector<int> changed_list_, full_list_;
  std::vector<float> score_, ex_, mx_;           // [head][b][a] (stride cap_jobs_), [head][a]
  std::vector<float> w_, sum_, mx_new_, ctx_t_;  // softmax weights [b][a]; context [E][a]
  std::vector<float> ctx_, h_, g_, pool_, tmp_, u_, uq_, t_;
  std::vector<float> xs_, s_, key_;  // per server row: input, embedding, key projection
  std::vector<unsigned char> server_ok_;
  std::vector<uint64_t> server_hash_;  // of the cached input row
  std::vector<int> twin_table_;        // open addressing by server_hash_: a distinct server or -1
  std::vector<float> out_;
  Stats stats_;
};

}  // namespace dmlkit::learn
