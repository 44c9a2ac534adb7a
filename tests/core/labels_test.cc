#include "core/labels.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

TEST(LabelSet, OrderIndependentEqualityAndHash) {
  auto a = LabelSet::Make({{"pod", "p"}, {"namespace", "ns"}, {"UUID", "GPU-1"}});
  auto b = LabelSet::Make({{"UUID", "GPU-1"}, {"pod", "p"}, {"namespace", "ns"}});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(a->hash(), b->hash());
  EXPECT_EQ(a->Get("pod"), "p");
  EXPECT_EQ(a->Get("missing"), "");
  EXPECT_NE(a->hash(), a->With("pod", "q").hash());
}

TEST(LabelSet, EmptyValuesAreAbsent) {
  // Older dcgm-exporter builds print container="",namespace="",pod="" on unallocated GPUs.
  LabelSet a{{"pod", ""}, {"gpu", "0"}};
  LabelSet b{{"gpu", "0"}};
  EXPECT_EQ(a, b);
  EXPECT_FALSE(a.Has("pod"));
}

TEST(LabelSet, DuplicateNamesAreAnError) {
  auto r = LabelSet::Make({{"a", "1"}, {"a", "2"}});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"a\""), std::string_view::npos);
}

TEST(LabelSet, PrintsWithEscaping) {
  LabelSet l{{"b", "x\"y\\z\nw"}, {"a", "1"}};
  EXPECT_EQ(l.ToString(), R"({a="1",b="x\"y\\z\nw"})");
}

TEST(Interner, SameStringSameId) {
  Interner in;
  const auto a = in.Intern("namespace");
  const auto b = in.Intern("pod");
  EXPECT_NE(a, b);
  EXPECT_EQ(in.Intern(std::string("namespace")), a);
  EXPECT_EQ(in.Get(b), "pod");
  for (int i = 0; i < 10000; ++i) in.Intern("k" + std::to_string(i));  // addresses stay valid
  EXPECT_EQ(in.Get(a), "namespace");
}

}  // namespace
}  // namespace gpucost
