// Smoothing of per-line label probabilities over the line sequence with a first-order hidden Markov
// model (plain C++): labels depend on their neighbours (a corner follows a saved shot, an assist
// line follows its goal). Hybrid HMM as in connectionist speech recognition (Bourlard & Morgan
// 1994): the classifier's posterior p(y|x) divided by the class prior p(y) stands in for the
// emission likelihood; transitions and the start distribution are counted on the training
// sequences with add-one smoothing; Viterbi finds the best label sequence. `weight` scales the
// log transition and start probabilities (0 = the classifier alone). [A] the weight and the
// add-one smoothing are our choices.
#pragma once
#include <vector>

namespace dmlkit::football {

struct LabelHmm {
  int states = 0;
  std::vector<double> start;        // p(y_1), states values
  std::vector<double> transitions;  // p(y_t = j | y_t-1 = i) at [i * states + j]
  std::vector<double> prior;        // p(y) over all training lines
};

// Counts over the label sequences (each a match's lines in order); labels in [0, states).
LabelHmm estimate_hmm(const std::vector<std::vector<int>>& sequences, int states);
// Viterbi path of posteriors[t][y] (each row sums to 1).
std::vector<int> viterbi(const LabelHmm& hmm, const std::vector<std::vector<double>>& posteriors, double weight);

}  // namespace dmlkit::football
