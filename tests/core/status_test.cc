#include "core/result.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

Result<int> Half(int x) {
  if (x % 2) return Status::InvalidArgument("odd");
  return x / 2;
}

Status UseHalf(int x, int* out) {
  GPUCOST_ASSIGN_OR_RETURN(*out, Half(x));
  return Status::Ok();
}

TEST(Status, OkIsCheapAndPrints) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.ToString(), "ok");
}

TEST(Status, ErrorCarriesCodeMessageAndContext) {
  Status s = Status::ParseError("line 3: bad value").WithContext("a.prom");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kParseError);
  EXPECT_EQ(s.message(), "a.prom: line 3: bad value");
  Status copy = s;
  EXPECT_EQ(copy.ToString(), "parse error: a.prom: line 3: bad value");
}

TEST(Result, ValueOrStatusAndMacros) {
  int v = 0;
  EXPECT_TRUE(UseHalf(8, &v).ok());
  EXPECT_EQ(v, 4);
  Status s = UseHalf(7, &v);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(v, 4);
}

}  // namespace
}  // namespace gpucost
