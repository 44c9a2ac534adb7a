#include "core/listen_address.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

TEST(ListenAddress, ParsesHostAndPort) {
  auto a = ParseListenAddress("127.0.0.1:9400");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->first, "127.0.0.1");
  EXPECT_EQ(a->second, 9400);
  auto b = ParseListenAddress(":0");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->first, "0.0.0.0");
  EXPECT_EQ(b->second, 0);
  auto c = ParseListenAddress("[::1]:9402");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->first, "::1");
}

TEST(ListenAddress, ErrorsNameTheFlag) {
  EXPECT_FALSE(ParseListenAddress("localhost").ok());
  EXPECT_FALSE(ParseListenAddress("localhost:70000").ok());
  auto bad = ParseListenAddress("localhost:x", "--serve");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "--serve localhost:x: bad port \"x\"");
}

}  // namespace
}  // namespace gpucost
