// Finding and reading the model files of Harmony's learned policies (`harmony`, harmony_model.h,
// and `harmony-seq2seq`, harmony_seq2seq/seq2seq_model.h): the model knob's value and the
// integers of a file's meta.
#pragma once
#include <string>

#include "learn/model_file.h"

namespace dmlkit::cluster {

// `name_or_path`: a bundled model's name (data/models/NAME.json) or, if it holds a '/' or ".json",
// a file's path (returned as is). Throws Error naming `knob` when no bundled model has that name.
std::string bundled_model_path(const std::string& name_or_path, const std::string& knob);
// meta[key] as a positive integer; throws Error(path, 0, "meta.KEY", ...) when missing or not one.
int model_meta_int(const learn::ModelFile& f, const std::string& path, const std::string& key);

}  // namespace dmlkit::cluster
