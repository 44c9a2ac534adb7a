#include "core/byte_size.h"

#include <gtest/gtest.h>

namespace gpucost {
namespace {

TEST(ByteSize, ParsesBinaryAndDecimalUnits) {
  EXPECT_EQ(*ParseByteSize("0"), 0u);
  EXPECT_EQ(*ParseByteSize("512"), 512u);
  EXPECT_EQ(*ParseByteSize("512B"), 512u);
  EXPECT_EQ(*ParseByteSize("500MiB"), 500u << 20);
  EXPECT_EQ(*ParseByteSize("20GiB"), uint64_t{20} << 30);
  EXPECT_EQ(*ParseByteSize(" 1.5 KiB "), 1536u);
  EXPECT_EQ(*ParseByteSize("2TiB"), uint64_t{2} << 40);
  EXPECT_EQ(*ParseByteSize("5GB"), 5'000'000'000u);
  EXPECT_EQ(*ParseByteSize("10kB"), 10'000u);
}

TEST(ByteSize, RefusesWhatIsNotASize) {
  for (const char* bad : {"", "GiB", "-1GiB", "20 gigs", "1e3", "1..2MiB", "20gib", "99999999TB"}) {
    const Result<uint64_t> r = ParseByteSize(bad);
    EXPECT_FALSE(r.ok()) << bad;
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << bad;
    }
  }
}

TEST(ByteSize, FormatsToThreeDigits) {
  EXPECT_EQ(FormatByteSize(0), "0B");
  EXPECT_EQ(FormatByteSize(512), "512B");
  EXPECT_EQ(FormatByteSize(1536), "1.5KiB");
  EXPECT_EQ(FormatByteSize(uint64_t{20} << 30), "20GiB");
  EXPECT_EQ(FormatByteSize(uint64_t{3} << 40), "3TiB");
}

}  // namespace
}  // namespace gpucost
