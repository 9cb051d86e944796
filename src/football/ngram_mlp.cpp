// The ngram-mlp tagger: training, model files, tagging (ngram_mlp.h).
#include "football/ngram_mlp.h"

#include <cmath>

#include "core/data_dir.h"
#include "core/error.h"
#include "core/rng.h"
#include "football/labels.h"
#include "football/tagger.h"
#include "learn/mlp_trainer.h"
#include "learn/model_file.h"

namespace dmlkit::football {
namespace {

constexpr const char* kKind = "football-ngram-mlp";

// The network's inputs of a line: the hashed n-grams (features.h), then, with a lexicon, one input
// per coarse label from the keyword rules (index dim + label).
std::vector<std::pair<int, float>> model_features(std::string_view text, const FeatureConfig& c) {
  auto f = line_features(text, c);
  const auto w = static_cast<float>(c.lexicon_weight);
  if (c.lexicon == "rule") {
    f.emplace_back(c.dim + keyword_label(text), w);
  } else if (c.lexicon == "hits") {
    const auto hits = keyword_hits(text);
    for (size_t y = 0; y < hits.size(); ++y)
      if (hits[y]) f.emplace_back(c.dim + static_cast<int>(y), w);
  }
  return f;
}

void fill_row(const std::vector<std::pair<int, float>>& f, float* row) {
  for (const auto& [i, v] : f) row[i] = v;
}

class NgramMlpTagger final : public Tagger {
 public:
  NgramMlpTagger(NgramMlpModel model, bool hmm, double weight)
      : model_(std::move(model)), hmm_(hmm), weight_(weight) {}

  std::vector<Tagged> tag(const std::vector<TextLine>& lines) const override {
    const auto probs = ngram_mlp_probabilities(model_, lines);
    std::vector<Tagged> out(lines.size());
    std::vector<int> path;
    if (hmm_) path = viterbi(model_.hmm, probs, weight_);
    for (size_t t = 0; t < lines.size(); ++t) {
      int best = 0;
      for (int k = 1; k < static_cast<int>(probs[t].size()); ++k)
        if (probs[t][k] > probs[t][best]) best = k;
      out[t].label = hmm_ ? path[t] : best;
      out[t].confidence = probs[t][out[t].label];
    }
    return out;
  }

 private:
  NgramMlpModel model_;
  bool hmm_;
  double weight_;
};

std::string meta_or(const learn::ModelFile& f, const std::string& key, const std::string& path) {
  const auto it = f.meta.find(key);
  if (it == f.meta.end()) throw Error(path, 0, std::string("meta.").append(key), "missing");
  return it->second;
}

}  // namespace

NgramMlpModel train_ngram_mlp(const std::vector<MatchText>& matches, const NgramMlpConfig& c) {
  const int k = coarse_count();
  std::vector<const TextLine*> rows;
  std::vector<std::vector<int>> sequences;
  for (const auto& m : matches) {
    sequences.emplace_back();
    for (const auto& l : m.lines)
      if (l.label >= 0) rows.push_back(&l), sequences.back().push_back(l.label);
  }
  if (rows.empty()) throw Error("", 0, "lines", "no labelled line to train on");
  const int data_lines = static_cast<int>(rows.size());
  std::vector<TextLine> name_lines;
  if (c.label_names) {
    for (int y = 0; y < k; ++y) {
      TextLine l;
      l.text = coarse_labels()[y];
      for (char& ch : l.text)
        if (ch == '_') ch = ' ';
      l.label = y;
      name_lines.push_back(l);
    }
    for (const auto& sn : soccernet_v2_labels()) {
      TextLine l;
      l.text = sn;
      l.label = coarse_index(*soccernet_to_coarse(sn));
      name_lines.push_back(l);
    }
    for (const auto& l : name_lines) rows.push_back(&l);
  }
  NgramMlpModel model;
  model.features = c.features;
  model.shape.inputs = model_inputs(c.features);
  model.shape.hidden = {c.hidden};
  model.shape.outputs = k;
  model.shape.validate();
  model.hmm = estimate_hmm(sequences, k);
  model.training_lines = data_lines;
  Rng rng(c.seed);
  auto trainer = learn::make_mlp_trainer(model.shape, learn::mlp_initial_parameters(model.shape, rng), c.learning_rate);
  std::vector<std::vector<std::pair<int, float>>> feats;
  for (const auto* l : rows) feats.push_back(model_features(l->text, c.features));
  std::vector<std::vector<size_t>> by_class(k);
  for (size_t i = 0; i < rows.size(); ++i) by_class[rows[i]->label].push_back(i);
  std::vector<int> present;
  for (int y = 0; y < k; ++y)
    if (!by_class[y].empty()) present.push_back(y);
  std::vector<size_t> order(rows.size());
  std::vector<float> x;
  std::vector<int> y;
  const int inputs = model.shape.inputs;
  for (int epoch = 0; epoch < c.epochs; ++epoch) {
    if (c.balance) {
      for (auto& o : order) {
        const auto& cls = by_class[present[rng.uniform_int(0, static_cast<int64_t>(present.size()) - 1)]];
        o = cls[rng.uniform_int(0, static_cast<int64_t>(cls.size()) - 1)];
      }
    } else {
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      rng.shuffle(order.begin(), order.end());
    }
    double loss_sum = 0;
    int batches = 0;
    for (size_t from = 0; from < order.size(); from += c.batch) {
      const size_t n = std::min(order.size() - from, static_cast<size_t>(c.batch));
      x.assign(n * inputs, 0.0f);
      y.resize(n);
      for (size_t r = 0; r < n; ++r) {
        fill_row(feats[order[from + r]], x.data() + r * inputs);
        y[r] = rows[order[from + r]]->label;
      }
      loss_sum += trainer->add_cross_entropy_gradient(x.data(), static_cast<int>(n), y.data()).loss;
      trainer->step(1);
      ++batches;
    }
    model.final_loss = loss_sum / std::max(1, batches);
  }
  model.parameters = trainer->parameters();
  model.meta["seed"] = std::to_string(c.seed);
  model.meta["epochs"] = std::to_string(c.epochs);
  model.meta["batch"] = std::to_string(c.batch);
  model.meta["learning_rate"] = std::to_string(c.learning_rate);
  model.meta["balance"] = c.balance ? "1" : "0";
  model.meta["label_names"] = c.label_names ? "1" : "0";
  model.meta["lexicon"] = c.features.lexicon;
  model.meta["training_lines"] = std::to_string(model.training_lines);
  model.meta["label_name_lines"] = std::to_string(name_lines.size());
  return model;
}

void save_ngram_mlp(const std::string& path, const NgramMlpModel& m) {
  learn::ModelFile f;
  f.kind = kKind;
  f.meta = m.meta;
  f.meta["labels"] = [] {
    std::string s;
    for (const auto& l : coarse_labels()) {
      if (!s.empty()) s += ',';
      s += l;
    }
    return s;
  }();
  f.meta["features.dim"] = std::to_string(m.features.dim);
  f.meta["features.char_min"] = std::to_string(m.features.char_min);
  f.meta["features.char_max"] = std::to_string(m.features.char_max);
  f.meta["features.bigrams"] = m.features.bigrams ? "1" : "0";
  f.meta["features.lexicon"] = m.features.lexicon;
  f.meta["features.lexicon_weight"] = std::to_string(m.features.lexicon_weight);
  f.nets["tagger"] = {m.shape, m.parameters};
  auto floats = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  f.extra["hmm.start"] = floats(m.hmm.start);
  f.extra["hmm.transitions"] = floats(m.hmm.transitions);
  f.extra["hmm.prior"] = floats(m.hmm.prior);
  learn::save_model_file(path, f);
}

NgramMlpModel load_ngram_mlp(const std::string& path) {
  const learn::ModelFile f = learn::load_model_file(path);
  if (f.kind != kKind) throw Error(path, 0, "kind", "model of kind " + f.kind + ", not an ngram-mlp tagger model");
  NgramMlpModel m;
  m.meta = f.meta;
  std::string labels;
  for (const auto& l : coarse_labels()) {
    if (!labels.empty()) labels += ',';
    labels += l;
  }
  if (meta_or(f, "labels", path) != labels) throw Error(path, 0, "meta.labels", "the model's labels differ from this build's");
  try {
    m.features.dim = std::stoi(meta_or(f, "features.dim", path));
    m.features.char_min = std::stoi(meta_or(f, "features.char_min", path));
    m.features.char_max = std::stoi(meta_or(f, "features.char_max", path));
  } catch (const std::logic_error&) {
    throw Error(path, 0, "meta.features", "not a number");
  }
  m.features.bigrams = meta_or(f, "features.bigrams", path) == "1";
  // Models made before the lexicon inputs existed have neither key: no lexicon.
  const auto lexicon = f.meta.find("features.lexicon");
  m.features.lexicon = lexicon == f.meta.end() ? "none" : lexicon->second;
  if (m.features.lexicon != "none" && m.features.lexicon != "rule" && m.features.lexicon != "hits")
    throw Error(path, 0, "meta.features.lexicon", "unknown lexicon '" + m.features.lexicon + "' (none, rule, hits)");
  if (const auto it = f.meta.find("features.lexicon_weight"); it != f.meta.end()) {
    try {
      m.features.lexicon_weight = std::stod(it->second);
    } catch (const std::logic_error&) {
      throw Error(path, 0, "meta.features.lexicon_weight", "not a number");
    }
  }
  const auto net = f.nets.find("tagger");
  if (net == f.nets.end()) throw Error(path, 0, "nets.tagger", "missing");
  m.shape = net->second.shape;
  m.parameters = net->second.parameters;
  const int k = coarse_count();
  if (m.shape.inputs != model_inputs(m.features) || m.shape.outputs != k)
    throw Error(path, 0, "nets.tagger", "shape does not match the features and labels");
  auto doubles = [&](const char* key, size_t n) {
    const auto it = f.extra.find(key);
    if (it == f.extra.end() || it->second.size() != n) throw Error(path, 0, std::string("extra.") + key, "missing or wrong size");
    return std::vector<double>(it->second.begin(), it->second.end());
  };
  m.hmm.states = k;
  m.hmm.start = doubles("hmm.start", k);
  m.hmm.transitions = doubles("hmm.transitions", static_cast<size_t>(k) * k);
  m.hmm.prior = doubles("hmm.prior", k);
  return m;
}

std::vector<std::vector<double>> ngram_mlp_probabilities(const NgramMlpModel& m, const std::vector<TextLine>& lines) {
  learn::MlpForward net(m.shape, m.parameters);
  std::vector<float> x(model_inputs(m.features), 0.0f);
  std::vector<std::vector<double>> out(lines.size());
  for (size_t t = 0; t < lines.size(); ++t) {
    const auto f = model_features(lines[t].text, m.features);
    fill_row(f, x.data());
    const auto& logits = net.run(x.data());
    for (const auto& [i, _] : f) x[i] = 0.0f;
    double mx = logits[0], sum = 0;
    for (float v : logits) mx = std::max(mx, double(v));
    out[t].resize(logits.size());
    for (size_t k = 0; k < logits.size(); ++k) sum += out[t][k] = std::exp(logits[k] - mx);
    for (auto& p : out[t]) p /= sum;
  }
  return out;
}

int model_inputs(const FeatureConfig& f) { return f.dim + (f.lexicon == "none" ? 0 : coarse_count()); }

TaggerEntry ngram_mlp_entry() {
  return {"ngram-mlp",
          "hashed char 3-5-gram + word 1-2-gram bag, plus the keyword lexicon's label as inputs -> MLP "
          "(libtorch-trained, plain C++ at run time); optional HMM over the line sequence",
          [](const TaggerOptions& o, const Knobs& k) -> std::unique_ptr<Tagger> {
            const std::string path = o.model_path.empty() ? data_path("football/models/ngram-mlp.json") : o.model_path;
            return std::make_unique<NgramMlpTagger>(load_ngram_mlp(path), k.get_bool("ngram-mlp.hmm"),
                                                    k.get_double("ngram-mlp.hmm_weight"));
          },
          {knob_bool("ngram-mlp.hmm", true, "smooth the labels over the line sequence with the HMM (Viterbi)"),
           knob_double("ngram-mlp.hmm_weight", 1.0, "weight of the log transition probabilities").range(0, 10),
           knob_int("ngram-mlp.dim", 4096, "train: hash buckets of the n-gram features").range(64, 1 << 20),
           knob_int("ngram-mlp.hidden", 32, "train: hidden ReLU units").range(1, 4096),
           knob_int("ngram-mlp.epochs", 30, "train: passes over the training lines").range(1, 10000),
           knob_int("ngram-mlp.batch", 16, "train: lines per Adam step").range(1, 4096),
           knob_double("ngram-mlp.lr", 0.01, "train: Adam learning rate").range(0, 1, true, false),
           knob_bool("ngram-mlp.balance", true, "train: draw lines class-uniformly each epoch"),
           knob_bool("ngram-mlp.label_names", true,
                     "train: add the label sets' names as one-line examples (coarse and SoccerNet-v2 names)"),
           knob_enum("ngram-mlp.lexicon", "rule", {"none", "rule", "hits"},
                     "train: extra inputs from the keyword lexicon, one per label: none; rule = the keywords "
                     "tagger's label (one-hot); hits = every label whose keywords occur (multi-hot)"),
           knob_double("ngram-mlp.lexicon_weight", 1.0, "train: value of an active lexicon input").range(0, 100)},
          {.trainable = true, .default_model = "football/models/ngram-mlp.json"}};
}

// The training settings a set of knobs gives.
NgramMlpConfig ngram_mlp_config(const Knobs& k, uint64_t seed) {
  NgramMlpConfig c;
  c.features.dim = static_cast<int>(k.get_int("ngram-mlp.dim"));
  c.hidden = static_cast<int>(k.get_int("ngram-mlp.hidden"));
  c.epochs = static_cast<int>(k.get_int("ngram-mlp.epochs"));
  c.batch = static_cast<int>(k.get_int("ngram-mlp.batch"));
  c.learning_rate = k.get_double("ngram-mlp.lr");
  c.balance = k.get_bool("ngram-mlp.balance");
  c.label_names = k.get_bool("ngram-mlp.label_names");
  c.features.lexicon = k.get_string("ngram-mlp.lexicon");
  c.features.lexicon_weight = k.get_double("ngram-mlp.lexicon_weight");
  c.seed = seed;
  return c;
}

}  // namespace dmlkit::football

namespace dmlkit::football {
std::unique_ptr<Tagger> make_ngram_mlp_tagger(NgramMlpModel model, const Knobs& k) {
  return std::make_unique<NgramMlpTagger>(std::move(model), k.get_bool("ngram-mlp.hmm"), k.get_double("ngram-mlp.hmm_weight"));
}
}  // namespace dmlkit::football
