// The one rule for bytes that are not UTF-8: well-formedness as Unicode defines it, one U+FFFD per
// maximal ill-formed subpart (as nlohmann::json writes with error_handler_t::replace), control
// characters replaced for terminals, and the shared writers (CSV fields, exported label values)
// that apply it.
#include "core/utf8.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/labels.h"
#include "core/strings.h"

namespace gpucost {
namespace {

const std::string kFffd(kReplacementCharacter);

TEST(Utf8, WellFormedIsAsUnicodeDefinesIt) {
  for (const std::string s : {"", "plain ascii", "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80",
                              "\xef\xbf\xbd", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(IsValidUtf8(s)) << s;
  }
  EXPECT_TRUE(IsValidUtf8(std::string("nul\0in", 6)));
  for (const std::string s :
       {"\xff", "\xfe", "\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80",
        "\xf4\x90\x80\x80", "\xf5\x80\x80\x80", "\xe2\x82", "\xf0\x9f\x98", "\xc3"}) {
    EXPECT_FALSE(IsValidUtf8(s)) << testing::PrintToString(s);
  }
  EXPECT_EQ(ValidUtf8Prefix("ab\xc3\xa9\xffz"), 4u);
}

TEST(Utf8, EachMaximalIllFormedSubpartIsOneReplacementCharacter) {
  EXPECT_EQ(ValidUtf8("research-\xff\xfe"), "research-" + kFffd + kFffd);
  // A truncated sequence is one subpart; the byte that cut it short is read again.
  EXPECT_EQ(ValidUtf8("\xe2\x82"
                      "A"),
            kFffd + "A");
  EXPECT_EQ(ValidUtf8("\xf0\x9f\x98"), kFffd);
  EXPECT_EQ(ValidUtf8("\xe2\x82\xff"), kFffd + kFffd);
  // Bytes that cannot continue the first one are subparts of their own.
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), kFffd + kFffd);
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), kFffd + kFffd + kFffd);
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80"), kFffd + kFffd + kFffd + kFffd);
  // Well-formed text is kept as it is.
  EXPECT_EQ(ValidUtf8("caf\xc3\xa9 \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xf0\x9f\x98\x80");
}

TEST(Utf8, ReplacesAsTheJsonLibraryDoes) {
  // The JSON renderers dump with error_handler_t::replace; every other renderer uses ValidUtf8.
  // Both must show a value the same way.
  const std::vector<std::string> cases = {
      "a\xff\xfe"
      "b",
      "\xe2\x82"
      "A",
      "\xf0\x9f\x98",
      "\xc0\xaf",
      "\xed\xa0\x80x",
      "\xf4\x90\x80\x80",
      "\xe0\x80\xaf",
      "\xc3",
      "ok\xc3\xa9\x80\x80",
      "\xf1\x80\x80\xe1\x80\xc2"};
  for (const std::string& s : cases) {
    const std::string dumped =
        nlohmann::json(s).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_EQ(nlohmann::json::parse(dumped).get<std::string>(), ValidUtf8(s))
        << testing::PrintToString(s);
  }
}

TEST(Utf8, PrintableTextAlsoReplacesControlCharacters) {
  // An escape sequence, a line break, a tab and C1's CSI cannot reach a terminal.
  EXPECT_EQ(PrintableText("\x1b[2Jteam"), kFffd + "[2Jteam");
  EXPECT_EQ(PrintableText("a\nb\tc\x7f"), "a" + kFffd + "b" + kFffd + "c" + kFffd);
  EXPECT_EQ(PrintableText("\xc2\x9b"
                          "31m"),
            kFffd + "31m");
  EXPECT_EQ(PrintableText("x\xff"), "x" + kFffd);
  EXPECT_EQ(PrintableText("caf\xc3\xa9 \xc2\xa0"), "caf\xc3\xa9 \xc2\xa0");  // NBSP is text
}

TEST(Utf8, LengthCountsCodePoints) {
  EXPECT_EQ(Utf8Length(""), 0u);
  EXPECT_EQ(Utf8Length("abc"), 3u);
  EXPECT_EQ(Utf8Length("caf\xc3\xa9"), 4u);
  EXPECT_EQ(Utf8Length(ValidUtf8("ns-\xff\xfe")), 5u);
}

TEST(Utf8, CsvFieldsAreUtf8) {
  EXPECT_EQ(CsvField("ns-\xff"), "ns-" + kFffd);
  EXPECT_EQ(CsvField("a,\xfe"), "\"a," + kFffd + "\"");
  EXPECT_EQ(CsvField("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(Utf8, CsvFieldsKeepLineBreaksAndTabsButNoOtherControlCharacters) {
  // A team label with an escape sequence must not clear the screen of whoever cats the file.
  EXPECT_EQ(CsvField("\x1b[2Jteam"), kFffd + "[2Jteam");
  EXPECT_EQ(CsvField("a\x7f\xc2\x9b"), "a" + kFffd + kFffd);
  // A CR would let the rest of a value overwrite its line; LF and tab are text, quoted.
  EXPECT_EQ(CsvField("a\rb"), "a" + kFffd + "b");
  EXPECT_EQ(CsvField("a\nb\tc"), "\"a\nb\tc\"");
  EXPECT_EQ(CsvField("a\tb"), "a\tb");
  EXPECT_EQ(PrintableLines("x\n\t\x1b\r"), "x\n\t" + kFffd + kFffd);
}

TEST(Utf8, ExportedLabelValuesAreUtf8AndEscaped) {
  std::string out;
  AppendExportedLabelValue(out, "a\"b\\c\nd\xff");
  EXPECT_EQ(out, "a\\\"b\\\\c\\nd" + kFffd);
  // Text gpucost reads back itself keeps its bytes.
  std::string kept;
  AppendEscapedLabelValue(kept, "d\xff");
  EXPECT_EQ(kept, "d\xff");
}

}  // namespace
}  // namespace gpucost
