// Label-sequence HMM (hmm.h).
#include "football/hmm.h"

#include <cmath>
#include <limits>

namespace dmlkit::football {

LabelHmm estimate_hmm(const std::vector<std::vector<int>>& sequences, int states) {
  LabelHmm h;
  h.states = states;
  h.start.assign(states, 1.0);
  h.transitions.assign(static_cast<size_t>(states) * states, 1.0);
  h.prior.assign(states, 1.0);
  for (const auto& seq : sequences) {
    for (size_t t = 0; t < seq.size(); ++t) {
      h.prior[seq[t]] += 1;
      if (t == 0) h.start[seq[t]] += 1;
      else h.transitions[static_cast<size_t>(seq[t - 1]) * states + seq[t]] += 1;
    }
  }
  auto normalise = [](double* v, int n) {
    double s = 0;
    for (int i = 0; i < n; ++i) s += v[i];
    for (int i = 0; i < n; ++i) v[i] /= s;
  };
  normalise(h.start.data(), states);
  normalise(h.prior.data(), states);
  for (int i = 0; i < states; ++i) normalise(h.transitions.data() + static_cast<size_t>(i) * states, states);
  return h;
}

std::vector<int> viterbi(const LabelHmm& h, const std::vector<std::vector<double>>& post, double weight) {
  const int k = h.states;
  const size_t n = post.size();
  std::vector<int> path(n, 0);
  if (n == 0) return path;
  auto emit = [&](size_t t, int j) { return std::log(std::max(post[t][j], 1e-12)) - std::log(h.prior[j]); };
  std::vector<double> score(k), next(k);
  std::vector<int> back(n * k, 0);
  for (int j = 0; j < k; ++j) score[j] = weight * std::log(h.start[j]) + emit(0, j);
  for (size_t t = 1; t < n; ++t) {
    for (int j = 0; j < k; ++j) {
      double best = -std::numeric_limits<double>::infinity();
      int arg = 0;
      for (int i = 0; i < k; ++i) {
        const double s = score[i] + weight * std::log(h.transitions[static_cast<size_t>(i) * k + j]);
        if (s > best) best = s, arg = i;
      }
      next[j] = best + emit(t, j);
      back[t * k + j] = arg;
    }
    score.swap(next);
  }
  int last = 0;
  for (int j = 1; j < k; ++j)
    if (score[j] > score[last]) last = j;
  for (size_t t = n; t-- > 0;) {
    path[t] = last;
    if (t > 0) last = back[t * k + last];
  }
  return path;
}

}  // namespace dmlkit::football
