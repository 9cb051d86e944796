// The one place that says where bundled data lives: $DMLKIT_DATA_DIR if set, else the source
// tree's data/ folder (compiled into core/data_dir.cpp only), so a build run from its checkout
// finds its workloads, profiles, model graphs, graphs and image sets. Every module asks here.
#pragma once
#include <string>
#include <string_view>

namespace dmlkit {

std::string default_data_dir();
// default_data_dir() + "/" + relative (e.g. "model-graphs", "app-profiles").
std::string data_path(std::string_view relative);

}  // namespace dmlkit
