// SecondMarks: whole seconds marked in any order, growing both ways, and range questions that
// touch a marked second or not.
#include "core/second_marks.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

TEST(SecondMarks, AnswersWhetherARangeTouchesAMarkedSecond) {
  SecondMarks m;
  EXPECT_TRUE(m.empty());
  EXPECT_FALSE(m.Any(0, 1'000'000));
  const int64_t t = 1'790'812'800'500;  // half a second into a second
  m.Add(t);
  EXPECT_FALSE(m.empty());
  EXPECT_TRUE(m.Any(t, t + 1));
  EXPECT_TRUE(m.Any(t - 500, t - 499));      // the start of the marked second
  EXPECT_TRUE(m.Any(t + 499, t + 500));      // its last millisecond
  EXPECT_FALSE(m.Any(t + 500, t + 60'000));  // the next second on
  EXPECT_FALSE(m.Any(t - 60'000, t - 500));  // up to the marked second
  EXPECT_FALSE(m.Any(t + 10, t + 10));       // an empty range
}

TEST(SecondMarks, GrowsBothWaysAndFindsMarksAcrossWords) {
  SecondMarks m;
  const int64_t base = 1'790'812'800'000;
  m.Add(base + 3'600'000);   // an hour later first
  m.Add(base);               // then before it: the bitmap grows to the left
  m.Add(base - 86'400'000);  // and a day before
  m.Add(base + 3'600'000);   // again: no change
  EXPECT_TRUE(m.Any(base - 86'400'000, base - 86'399'000));
  EXPECT_FALSE(m.Any(base - 86'399'000, base));
  EXPECT_TRUE(m.Any(base - 86'399'000, base + 1));
  EXPECT_FALSE(m.Any(base + 1000, base + 3'600'000));
  EXPECT_TRUE(m.Any(base + 1000, base + 3'600'001));
  EXPECT_FALSE(m.Any(base + 3'601'000, base + 7'200'000));
  // Every second of a minute, then ranges that start and end inside 64-second words.
  SecondMarks dense;
  for (int64_t s = 0; s < 60; s += 7) dense.Add(base + s * 1000 + 999);
  for (int64_t s = 0; s < 60; ++s) {
    EXPECT_EQ(dense.Any(base + s * 1000, base + s * 1000 + 1000), s % 7 == 0) << s;
  }
  // Times before 1970 are whole seconds too.
  SecondMarks early;
  early.Add(-1);
  EXPECT_TRUE(early.Any(-1000, 0));
  EXPECT_FALSE(early.Any(0, 1000));
}

}  // namespace
}  // namespace gpucost
