// The streaming CSV reader: quoting, line ends, byte-order mark, blank lines, line numbers,
// errors, and the same records whatever the chunk boundaries.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "billing/csv_reader.h"

namespace gpucost::billing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Record {
  int64_t line;
  std::vector<std::string> fields;
};

// Feeds `text` in pieces of `piece` bytes (0: all at once).
ChunkSource Pieces(const std::string& text, size_t piece) {
  if (piece == 0) return TextChunks(text);
  return [&text, piece, pos = size_t{0}]() mutable -> Result<std::string_view> {
    const size_t n = std::min(piece, text.size() - pos);
    std::string_view out(text.data() + pos, n);
    pos += n;
    return out;
  };
}

Result<std::vector<Record>> ReadAll(const std::string& text, size_t piece = 0) {
  CsvReader reader(Pieces(text, piece), "t.csv");
  std::vector<Record> out;
  std::vector<std::string_view> fields;
  while (true) {
    GPUCOST_ASSIGN_OR_RETURN(const bool more, reader.Next(fields));
    if (!more) break;
    out.push_back(Record{reader.line(), {fields.begin(), fields.end()}});
  }
  return out;
}

std::vector<Record> MustRead(const std::string& text, size_t piece = 0) {
  auto r = ReadAll(text, piece);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<Record>{};
}

TEST(CsvReaderTest, PlainFieldsAndEmptyOnes) {
  const auto recs = MustRead("a,b,c\n1,,3\n,,\n");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_THAT(recs[0].fields, ElementsAre("a", "b", "c"));
  EXPECT_THAT(recs[1].fields, ElementsAre("1", "", "3"));
  EXPECT_THAT(recs[2].fields, ElementsAre("", "", ""));
}

TEST(CsvReaderTest, QuotedCommasQuotesAndLineBreaks) {
  const auto recs = MustRead("h1,h2\n\"Amazon Web Services, Inc.\",\"say \"\"hi\"\"\"\n"
                             "\"two\nlines\",x\nlast,\"\"\n");
  ASSERT_EQ(recs.size(), 4u);
  EXPECT_THAT(recs[1].fields, ElementsAre("Amazon Web Services, Inc.", "say \"hi\""));
  EXPECT_THAT(recs[2].fields, ElementsAre("two\nlines", "x"));
  EXPECT_EQ(recs[2].line, 3);
  EXPECT_EQ(recs[3].line, 5);  // the quoted line break moved it down one line
  EXPECT_THAT(recs[3].fields, ElementsAre("last", ""));
}

TEST(CsvReaderTest, CrlfBomBlankLinesAndNoFinalNewline) {
  const auto recs = MustRead("\xEF\xBB\xBFh1,h2\r\n\r\na,b\r\n\n\"q\r\nr\",c");
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_THAT(recs[0].fields, ElementsAre("h1", "h2"));  // the mark is not part of the name
  EXPECT_EQ(recs[1].line, 3);
  EXPECT_THAT(recs[1].fields, ElementsAre("a", "b"));
  EXPECT_EQ(recs[2].line, 5);
  EXPECT_THAT(recs[2].fields, ElementsAre("q\r\nr", "c"));
}

TEST(CsvReaderTest, PartialByteOrderMarkIsData) {
  const auto recs = MustRead("\xEF\xBBx,y\n");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_THAT(recs[0].fields, ElementsAre("\xEF\xBBx", "y"));
}

TEST(CsvReaderTest, SameRecordsForEveryChunkSize) {
  const std::string text =
      "\xEF\xBB\xBFh1,h2,h3\r\n\"a,1\",\"b\"\"2\",c\r\n\r\n\"multi\nline\",,\"\"\nx,y,z";
  const auto whole = MustRead(text);
  ASSERT_EQ(whole.size(), 4u);
  EXPECT_EQ(whole[3].line, 6);
  for (size_t piece = 1; piece <= 7; ++piece) {
    const auto parts = MustRead(text, piece);
    ASSERT_EQ(parts.size(), whole.size()) << "piece " << piece;
    for (size_t i = 0; i < whole.size(); ++i) {
      EXPECT_EQ(parts[i].fields, whole[i].fields) << "piece " << piece << " record " << i;
      EXPECT_EQ(parts[i].line, whole[i].line) << "piece " << piece << " record " << i;
    }
  }
}

TEST(CsvReaderTest, UnterminatedQuoteNamesTheLineWhereItStarts) {
  auto r = ReadAll("a,b\n1,2\n3,\"open\nstill open\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kParseError);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("t.csv:3: field 2: quoted field is never closed"));
}

TEST(CsvReaderTest, TextAfterClosingQuoteIsAnError) {
  auto r = ReadAll("a,b\n\"x\"y,2\n");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("t.csv:2: field 1: text after the closing quote"));
}

TEST(CsvReaderTest, EmptyInputHasNoRecords) {
  EXPECT_TRUE(MustRead("").empty());
  EXPECT_TRUE(MustRead("\n\r\n\n").empty());
  EXPECT_TRUE(MustRead("\xEF\xBB\xBF").empty());
}

TEST(CsvReaderTest, QuotedEmptyLineIsARecord) {
  const auto recs = MustRead("\"\"\n");
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_THAT(recs[0].fields, ElementsAre(""));
}

}  // namespace
}  // namespace gpucost::billing
