#include <gtest/gtest.h>

#include "serve/serve_server.h"

namespace gpucost::serve {
namespace {

TEST(PathPrefix, SegmentsOfSafeCharactersWithoutATrailingSlash) {
  for (const char* ok : {"", "/gpucost", "/tools/gpu-cost_1", "/~x"}) {
    EXPECT_TRUE(CheckPathPrefix(ok).ok()) << ok;
  }
  // Each would route wrongly (a regular expression, a slash too many) or not at all.
  for (const char* bad :
       {"/", "gpucost", "/gpucost/", "//gpucost", "/a//b", "/a.b", "/a(b)", "/a b", "/a?b", "/ä"}) {
    const Status s = CheckPathPrefix(bad);
    EXPECT_FALSE(s.ok()) << bad;
    EXPECT_NE(s.message().find("--path-prefix"), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace gpucost::serve
