// A graph file saved with a UTF-8 byte-order mark and CRLF line ends reads as the plain file does
// (issue 11, defect 2).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/data_dir.h"
#include "influence/graph_io.h"
#include "spreadsheet_copy.h"

namespace dmlkit::influence {
namespace {

TEST(BomCrlf, GraphFiles) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("dmlkit-bom-influence-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string nethept = data_path("graphs/NetHEPT.txt");
  std::ofstream(dir / "edges.txt") << "# a comment\n0 1 0.5\n1 2 0.25\n2 0 1\n";
  std::ofstream(dir / "header.txt") << "3 2\n0 1\n1 2\n";
  const std::vector<std::pair<std::string, GraphFormat>> files = {{nethept, GraphFormat::Auto},
                                                                  {(dir / "edges.txt").string(), GraphFormat::Auto},
                                                                  {(dir / "header.txt").string(), GraphFormat::Header}};
  for (const auto& [plain, format] : files) {
    SCOPED_TRACE(plain);
    const fs::path excel = dir / ("excel-" + fs::path(plain).filename().string());
    dmlkit::testing::copy_as_spreadsheet(plain, excel);
    const EdgeList a = read_graph(plain, format), b = read_graph(excel.string(), format);
    EXPECT_EQ(a.num_nodes, b.num_nodes);
    EXPECT_GT(a.num_edges(), 0u);
    EXPECT_EQ(a.src, b.src);
    EXPECT_EQ(a.dst, b.dst);
    EXPECT_EQ(a.prob, b.prob);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dmlkit::influence
