#include <gtest/gtest.h>

#include "core/csv.h"
#include "core/error.h"

using dmlkit::CsvTable;
using dmlkit::Error;

TEST(Csv, ParsesHeaderQuotesAndLineNumbers) {
  auto t = CsvTable::parse("a,b,c\n1,\"x,y\",3\r\n\n4,\"q\"\"\",6\n", "mem.csv");
  ASSERT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.str(0, 1), "x,y");
  EXPECT_EQ(t.str(1, 1), "q\"");
  EXPECT_EQ(t.line_of(1), 4);
  EXPECT_DOUBLE_EQ(t.num(1, t.column("c")), 6.0);
}

TEST(Csv, ErrorsNameFileLineAndField) {
  auto t = CsvTable::parse("name,duration\njob,abc\n", "trace.csv");
  try {
    t.num(0, t.column("duration"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.file(), "trace.csv");
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.field(), "duration");
    EXPECT_STREQ(e.what(), "trace.csv:2: field 'duration': not a number: 'abc'");
  }
  EXPECT_THROW(t.column("missing"), Error);
  EXPECT_THROW(CsvTable::parse("a,b\n1\n", "x.csv"), Error);
  EXPECT_THROW(CsvTable::parse("", "empty.csv"), Error);
  EXPECT_THROW(CsvTable::read("/nonexistent/file.csv"), Error);
}

TEST(Csv, RejectsNonFiniteNumbers) {
  auto t = CsvTable::parse("x\nnan\ninf\n1e3\n", "n.csv");
  EXPECT_THROW(t.num(0, 0), Error);
  EXPECT_THROW(t.num(1, 0), Error);
  EXPECT_DOUBLE_EQ(t.num(2, 0), 1000.0);
}

// A spreadsheet's export (UTF-8 BOM, CRLF, also inside a quoted field) reads as the plain file does
// (issue 11, defect 2: the BOM made the first column 'name' a missing column).
TEST(Csv, ByteOrderMarkAndCrlfReadAsThePlainFile) {
  const std::string plain = "name,time,note\njob-1,0,\"two\nlines\"\njob-2,5,x\n";
  std::string excel = "\xEF\xBB\xBF";
  for (char c : plain) excel += c == '\n' ? std::string("\r\n") : std::string(1, c);
  const auto a = CsvTable::parse(plain, "w.csv");
  const auto b = CsvTable::parse(excel, "w.csv");
  EXPECT_EQ(a.header(), b.header());
  EXPECT_EQ(b.column("name"), 0);
  ASSERT_EQ(a.rows(), b.rows());
  for (size_t r = 0; r < a.rows(); ++r) {
    EXPECT_EQ(a.line_of(r), b.line_of(r));
    for (int c = 0; c < 3; ++c) EXPECT_EQ(a.str(r, c), b.str(r, c));
  }
  EXPECT_EQ(b.str(0, 2), "two\nlines");
}
