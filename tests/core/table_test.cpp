// CsvWriter and append_fixed give the same text as TextTable::to_csv and fixed() (issue 11: the
// cluster detail files are streamed, and must stay byte-identical to the table-built ones).
#include "core/table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "core/rng.h"

namespace {

std::vector<double> awkward_values() {
  std::vector<double> v = {0.0,
                           -0.0,
                           0.0005,
                           0.0015,
                           0.0025,
                           -0.0005,
                           1.0005,
                           2.675,
                           1e-9,
                           123456.7895,
                           1e15 + 0.5,
                           9.9995,
                           -9.9995,
                           1e300,
                           -1e300,
                           1e22,
                           5e-324,
                           std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(),
                           std::nan(""),
                           -std::nan("")};
  dmlkit::Rng rng(7);
  for (int i = 0; i < 20000; ++i) v.push_back((rng.uniform() - 0.3) * std::pow(10.0, rng.uniform() * 12 - 3));
  for (int i = 0; i < 2000; ++i) v.push_back(std::round(rng.uniform() * 1e6) / 1000.0 + 0.0005);
  return v;
}

TEST(AppendFixed, MatchesPrintfForAwkwardValues) {
  for (int digits : {0, 1, 3, 4}) {
    for (double v : awkward_values()) {
      std::string s = "x";
      dmlkit::append_fixed(s, v, digits);
      ASSERT_EQ(s, "x" + dmlkit::fixed(v, digits)) << "value " << v << " digits " << digits;
    }
  }
}

// Issue 20: no "-0.000" in any table or CSV: a value that rounds to zero is written without a sign.
TEST(Fixed, NoNegativeZero) {
  EXPECT_EQ(dmlkit::fixed(-0.0, 3), "0.000");
  EXPECT_EQ(dmlkit::fixed(-1e-9, 3), "0.000");
  EXPECT_EQ(dmlkit::fixed(-0.0004, 3), "0.000");
  EXPECT_EQ(dmlkit::fixed(-0.0005001, 3), "-0.001");
  EXPECT_EQ(dmlkit::fixed(-1e-9, 0), "0");
  std::string s;
  dmlkit::append_fixed(s, -1e-12, 2);
  EXPECT_EQ(s, "0.00");
}

TEST(CsvWriter, MatchesTextTableCsvAcrossBufferFlushes) {
  dmlkit::TextTable t({"id", "name", "time_s", "note"});
  std::ostringstream streamed;
  {
    dmlkit::CsvWriter w(streamed, 16);  // tiny buffer: flushes after almost every row
    w.header(t.header());
    const std::vector<std::string> names = {"plain", "with,comma", "with \"quote\"", "line\nbreak", "cr\r", ""};
    for (int i = 0; i < 200; ++i) {
      const double v = i * 1.2345 - 50;
      const std::string& name = names[static_cast<size_t>(i) % names.size()];
      t.add_row({std::to_string(i - 100), name, dmlkit::fixed(v, 3), i % 3 ? "" : std::to_string(i * 1000000007LL)});
      w.integer(i - 100).text(name).fixed(v, 3);
      i % 3 ? w.empty() : w.integer(i * 1000000007LL);
      w.end_row();
    }
    w.finish();
  }
  EXPECT_EQ(streamed.str(), t.to_csv());
}

}  // namespace
