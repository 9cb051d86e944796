// A model DAG saved with a UTF-8 byte-order mark and CRLF line ends reads as the plain file does
// (issue 11, defect 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "comm/model_graph.h"
#include "core/data_dir.h"
#include "spreadsheet_copy.h"

namespace dmlkit::comm {
namespace {

TEST(BomCrlf, ModelGraph) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("dmlkit-bom-comm-" + std::to_string(::getpid()));
  for (const std::string model : {"vgg16", "gnmt"}) {
    const std::string plain = data_path("model-graphs/" + model + ".txt");
    dmlkit::testing::copy_as_spreadsheet(plain, dir / (model + ".txt"));
    const ModelGraph a = read_model_graph(plain, model), b = read_model_graph((dir / (model + ".txt")).string(), model);
    ASSERT_EQ(a.nodes.size(), b.nodes.size());
    ASSERT_FALSE(a.nodes.empty());
    for (size_t i = 0; i < a.nodes.size(); ++i) {
      EXPECT_EQ(a.nodes[i].id, b.nodes[i].id);
      EXPECT_EQ(a.nodes[i].op, b.nodes[i].op);
      EXPECT_EQ(a.nodes[i].fwd_s, b.nodes[i].fwd_s);
      EXPECT_EQ(a.nodes[i].bwd_s, b.nodes[i].bwd_s);
      EXPECT_EQ(a.nodes[i].activation_bytes, b.nodes[i].activation_bytes);
      EXPECT_EQ(a.nodes[i].param_bytes, b.nodes[i].param_bytes);
      EXPECT_EQ(a.nodes[i].preds, b.nodes[i].preds);
      EXPECT_EQ(a.nodes[i].succs, b.nodes[i].succs);
      EXPECT_EQ(a.nodes[i].line, b.nodes[i].line);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlkit::comm
