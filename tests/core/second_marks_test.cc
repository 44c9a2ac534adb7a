// SecondMarks: whole seconds of a fixed range marked in any order, range questions that touch a
// marked second or not, marks outside the range ignored, and a range too long for seconds kept in
// bounded memory with coarser buckets.
#include "core/second_marks.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

constexpr int64_t kBase = 1'790'812'800'000;  // 2026-10-01T00:00:00Z
constexpr int64_t kHourMs = 3'600'000;

TEST(SecondMarks, AnswersWhetherARangeTouchesAMarkedSecond) {
  SecondMarks m(kBase, kBase + kHourMs);
  EXPECT_TRUE(m.empty());
  EXPECT_FALSE(m.Any(kBase, kBase + kHourMs));
  const int64_t t = kBase + 600'500;  // half a second into a second
  m.Add(t);
  EXPECT_FALSE(m.empty());
  EXPECT_TRUE(m.Any(t, t + 1));
  EXPECT_TRUE(m.Any(t - 500, t - 499));      // the start of the marked second
  EXPECT_TRUE(m.Any(t + 499, t + 500));      // its last millisecond
  EXPECT_FALSE(m.Any(t + 500, t + 60'000));  // the next second on
  EXPECT_FALSE(m.Any(t - 60'000, t - 500));  // up to the marked second
  EXPECT_FALSE(m.Any(t + 10, t + 10));       // an empty range
  EXPECT_TRUE(m.Any(kBase - kHourMs, kBase + 2 * kHourMs));  // reaching outside the range
}

TEST(SecondMarks, FindsMarksInAnyOrderAndAcrossWords) {
  SecondMarks m(kBase - 86'400'000, kBase + 2 * kHourMs);
  m.Add(kBase + kHourMs);  // later first
  m.Add(kBase);
  m.Add(kBase - 86'400'000);
  m.Add(kBase + kHourMs);  // again: no change
  EXPECT_TRUE(m.Any(kBase - 86'400'000, kBase - 86'399'000));
  EXPECT_FALSE(m.Any(kBase - 86'399'000, kBase));
  EXPECT_TRUE(m.Any(kBase - 86'399'000, kBase + 1));
  EXPECT_FALSE(m.Any(kBase + 1000, kBase + kHourMs));
  EXPECT_TRUE(m.Any(kBase + 1000, kBase + kHourMs + 1));
  EXPECT_FALSE(m.Any(kBase + kHourMs + 1000, kBase + 2 * kHourMs));
  // Every seventh second of a minute, then ranges that start and end inside 64-bit words.
  SecondMarks dense(kBase, kBase + 60'000);
  for (int64_t s = 0; s < 60; s += 7) dense.Add(kBase + s * 1000 + 999);
  for (int64_t s = 0; s < 60; ++s) {
    EXPECT_EQ(dense.Any(kBase + s * 1000, kBase + s * 1000 + 1000), s % 7 == 0) << s;
  }
}

TEST(SecondMarks, IgnoresMarksOutsideItsRangeAndBoundsItsMemory) {
  SecondMarks m(kBase, kBase + kHourMs);
  m.Add(kBase - 1);
  m.Add(kBase + kHourMs);
  m.Add(0);
  m.Add(INT64_MAX);
  m.Add(INT64_MIN);
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.bucket_ms(), 1000);
  // Samples a thousand years apart: buckets grow instead of the bitmap.
  SecondMarks wide(-kBase * 10, kBase * 10);
  EXPECT_GT(wide.bucket_ms(), 1000);
  EXPECT_LE((kBase * 20) / wide.bucket_ms(), SecondMarks::kMaxBuckets + 1);
  wide.Add(kBase);
  EXPECT_TRUE(wide.Any(kBase, kBase + 1));
  EXPECT_FALSE(wide.Any(-kBase * 5, -kBase * 4));
  SecondMarks none;
  none.Add(kBase);
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.Any(INT64_MIN, INT64_MAX));
}

}  // namespace
}  // namespace gpucost
