// The XOR chunk decoder against chunks a real Prometheus wrote (compared with that Prometheus'
// own query-API answer for the same samples), against hand-assembled bytes, and against the
// encoder on edge cases: one sample, negative deltas, NaN and staleness markers, every
// delta-of-delta bucket and its boundaries, and malformed input.
#include "promsource/xor_chunk.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "promsource/matrix_parser.h"
#include "promsource/promsource_test_util.h"

namespace gpucost::promsource {
namespace {

using testing::FromHex;
using testing::ReadData;
using testing::RecordingHandler;

std::vector<XorSample> DecodeAll(std::string_view chunk, Status* status = nullptr) {
  std::vector<XorSample> out;
  XorChunkIterator it(chunk);
  while (it.Next()) out.push_back({it.t(), it.v()});
  if (status != nullptr) *status = it.status();
  return out;
}

// Same timestamps and bit-identical values (so NaN payloads and -0 count).
void ExpectSameSamples(const std::vector<XorSample>& got, const std::vector<XorSample>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].t_ms, want[i].t_ms) << "sample " << i;
    EXPECT_EQ(std::bit_cast<uint64_t>(got[i].value), std::bit_cast<uint64_t>(want[i].value))
        << "sample " << i << ": " << got[i].value << " vs " << want[i].value;
  }
}

// What Prometheus' query API said the chunk holds.
std::vector<XorSample> FromQueryApi(const std::string& body) {
  RecordingHandler h;
  const Window all{InstantFromUnixMs(0), InstantFromUnixMs(int64_t{1} << 50)};
  auto r = StreamMatrix(body, all, "x", h);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  std::vector<XorSample> out;
  for (const auto& s : h.samples) out.push_back({s.t_ms, s.value});
  return out;
}

TEST(XorChunk, RealPrometheusChunkWithEveryBucketMatchesItsQueryApi) {
  const std::string chunk = FromHex(ReadData("xor_chunk_edges.hex"));
  ASSERT_FALSE(chunk.empty());
  Status st;
  const std::vector<XorSample> got = DecodeAll(chunk, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const std::vector<XorSample> want = FromQueryApi(ReadData("xor_chunk_edges.json"));
  ASSERT_EQ(want.size(), 12u);
  // The JSON writes NaN as a string, so only its NaN-ness can be compared; all else bitwise.
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].t_ms, want[i].t_ms) << i;
    if (std::isnan(want[i].value)) {
      EXPECT_TRUE(std::isnan(got[i].value)) << i;
    } else {
      EXPECT_EQ(std::bit_cast<uint64_t>(got[i].value), std::bit_cast<uint64_t>(want[i].value))
          << i << ": " << got[i].value;
    }
  }
  EXPECT_TRUE(std::signbit(got[8].value));  // -0 survived
  // Our encoder writes the very bytes Prometheus wrote.
  EXPECT_EQ(EncodeXorChunk(got), chunk);
}

TEST(XorChunk, RealPrometheusDemoChunkMatchesItsQueryApi) {
  const std::string chunk = FromHex(ReadData("xor_chunk_demo.hex"));
  Status st;
  const std::vector<XorSample> got = DecodeAll(chunk, &st);
  ASSERT_TRUE(st.ok()) << st.ToString();
  ASSERT_EQ(got.size(), 120u);
  ExpectSameSamples(got, FromQueryApi(ReadData("xor_chunk_demo.json")));
  EXPECT_EQ(EncodeXorChunk(got), chunk);
}

TEST(XorChunk, HandAssembledSingleSample) {
  // count 1; t = 1000 as zigzag varint (2000 = d0 0f); value 1.0 as 64 raw bits.
  const std::string chunk = FromHex("0001 d00f 3ff0000000000000");
  Status st;
  ExpectSameSamples(DecodeAll(chunk, &st), {{1000, 1.0}});
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(EncodeXorChunk(std::vector<XorSample>{{1000, 1.0}}), chunk);
  // A negative first timestamp: -5 is zigzag 9.
  ExpectSameSamples(DecodeAll(FromHex("0001 09 c000000000000000")), {{-5, -2.0}});
}

TEST(XorChunk, HandAssembledSecondSampleAndRepeats) {
  // t 0 -> 1000 (delta uvarint e8 07), value 1.0 repeated (bit 0), third sample dod 0 (bit 0),
  // value repeated (bit 0): "00" then padding.
  const std::string chunk = FromHex("0003 00 3ff0000000000000 e807 00");
  Status st;
  ExpectSameSamples(DecodeAll(chunk, &st), {{0, 1.0}, {1000, 1.0}, {2000, 1.0}});
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(XorChunk, EmptyChunkHasNoSamples) {
  Status st;
  EXPECT_TRUE(DecodeAll(FromHex("0000"), &st).empty());
  EXPECT_TRUE(st.ok());
}

TEST(XorChunk, EveryDeltaOfDeltaBucketAndItsEdgesRoundTrip) {
  // dods chosen at each bucket's asymmetric limits: 14 bits hold -8191..8192, 17 bits
  // -65535..65536, 20 bits -524287..524288, anything else takes 64 bits.
  const std::vector<int64_t> dods = {0,      1,       -1,     8192,    -8191,  8193,
                                     -8192,  65536,   -65535, 65537,   -65536, 524288,
                                     -524287, 524289, -524288, int64_t{1} << 40, -(int64_t{1} << 40)};
  std::vector<XorSample> samples;
  int64_t t = 1790812800000, delta = 10 * 1000 * 1000;
  samples.push_back({t, 0.0});
  t += delta;
  samples.push_back({t, 1.0});
  for (size_t i = 0; i < dods.size(); ++i) {
    delta += dods[i];
    t += delta;
    samples.push_back({t, static_cast<double>(i) * 0.25});
  }
  const std::string chunk = EncodeXorChunk(samples);
  Status st;
  ExpectSameSamples(DecodeAll(chunk, &st), samples);
  EXPECT_TRUE(st.ok()) << st.ToString();
}

TEST(XorChunk, BucketSizesAreThePrometheusOnes) {
  // Three samples: the third's dod decides the size. Header 2 + varint t0 (1 byte for 0) + 8
  // value bytes + delta varint (1 byte for 100) = 12 bytes, then bits: dod prefix+payload, and a
  // repeated value (1 bit).
  auto size_for = [](int64_t dod) {
    const std::vector<XorSample> s = {{0, 1.0}, {100, 1.0}, {200 + dod, 1.0}};
    return EncodeXorChunk(s).size();
  };
  EXPECT_EQ(size_for(0), 13u);          // 1 + 1 bits
  EXPECT_EQ(size_for(8192), 15u);       // 2 + 14 + 1 = 17 bits
  EXPECT_EQ(size_for(-8192), 15u);      // 3 + 17 + 1 = 21 bits
  EXPECT_EQ(size_for(65536), 15u);      // 21 bits
  EXPECT_EQ(size_for(65537), 16u);      // 4 + 20 + 1 = 25 bits
  EXPECT_EQ(size_for(524289), 21u);     // 4 + 64 + 1 = 69 bits
}

TEST(XorChunk, NegativeDeltasAndBackwardsTimestampsDecodeAsWritten) {
  // Prometheus never writes these, but the format can hold them and the decoder must not
  // misread them (callers drop out-of-order samples).
  const std::vector<XorSample> s = {{5000, 1}, {4000, 2}, {1000, 3}, {-20000, 4}, {-20000, 5}};
  ExpectSameSamples(DecodeAll(EncodeXorChunk(s)), s);
}

TEST(XorChunk, NaNPayloadsAndStaleMarkersKeepTheirBits) {
  const double stale = std::bit_cast<double>(kStaleNaNBits);
  const double quiet = std::numeric_limits<double>::quiet_NaN();
  const double payload = std::bit_cast<double>(uint64_t{0x7ff8000000000001});
  const std::vector<XorSample> s = {{0, 1.5},   {15000, stale}, {30000, 2.5},  {45000, quiet},
                                    {60000, stale}, {75000, payload}, {90000, -0.0}, {105000, stale}};
  const std::string chunk = EncodeXorChunk(s);
  XorChunkIterator it(chunk);
  std::vector<uint64_t> bits;
  while (it.Next()) bits.push_back(it.value_bits());
  ASSERT_TRUE(it.status().ok());
  ASSERT_EQ(bits.size(), s.size());
  EXPECT_EQ(bits[1], kStaleNaNBits);
  EXPECT_EQ(bits[4], kStaleNaNBits);
  EXPECT_EQ(bits[7], kStaleNaNBits);
  EXPECT_EQ(bits[5], 0x7ff8000000000001u);
  EXPECT_EQ(bits[6], 0x8000000000000000u);
}

TEST(XorChunk, ManyRandomishValuesRoundTrip) {
  std::vector<XorSample> s;
  uint64_t x = 88172645463325252ULL;  // xorshift: deterministic, no wall clock
  int64_t t = 0;
  for (int i = 0; i < 2000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    t += 1 + static_cast<int64_t>(x % 100000);
    const double v = (i % 7 == 0) ? std::bit_cast<double>(x) : static_cast<double>(x % 1000) / 8;
    s.push_back({t, v});
  }
  ExpectSameSamples(DecodeAll(EncodeXorChunk(s)), s);
}

TEST(XorChunk, TruncatedChunksFailWithTheSampleIndex) {
  const std::string chunk = FromHex(ReadData("xor_chunk_edges.hex"));
  for (size_t n = 0; n + 1 < chunk.size(); ++n) {
    Status st;
    const std::vector<XorSample> got = DecodeAll(chunk.substr(0, n), &st);
    EXPECT_LT(got.size(), 12u) << n;
    EXPECT_FALSE(st.ok()) << "prefix of " << n << " bytes";
    EXPECT_NE(st.ToString().find("XOR chunk"), std::string::npos) << st.ToString();
  }
}

TEST(XorChunk, MalformedValueWindowIsRejected) {
  // Second sample: delta 1, value control bits '11', leading 31 (11111), sigbits 40 (101000):
  // 31 + 40 > 64.
  // bits: 1 1 11111 101000 -> 1111 1111 1010 00.. = ff a0
  const std::string chunk = FromHex("0002 00 3ff0000000000000 01 ffa0 0000000000000000");
  Status st;
  const std::vector<XorSample> got = DecodeAll(chunk, &st);
  EXPECT_EQ(got.size(), 1u);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("exceeds 64 bits"), std::string::npos) << st.ToString();
}

TEST(XorChunk, OverlongVarintIsRejected) {
  Status st;
  DecodeAll(FromHex("0001 ffffffffffffffffff7f 0000000000000000"), &st);
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("bad first timestamp"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace gpucost::promsource
