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
