// Prometheus' XOR ("Gorilla") chunk encoding of float samples, as remote read streams it: a
// 2-byte big-endian sample count; the first timestamp as a zigzag varint and its value as 64
// raw bits; the second timestamp as an unsigned varint delta; then each timestamp as a
// delta-of-delta in a prefix-coded bucket ('0', '10'+14 bits, '110'+17, '1110'+20, '1111'+64)
// and each value XORed with the previous one (leading/trailing-zero windows). The iterator reads
// a chunk in place without allocating and rejects malformed input with a reason; the encoder
// writes the same format (tests, benchmarks, fake servers). Neither is thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/status.h"

namespace gpucost::promsource {

// Prometheus' staleness marker: a NaN with this exact bit pattern ends a series.
inline constexpr uint64_t kStaleNaNBits = 0x7ff0000000000002ULL;

class XorChunkIterator {
 public:
  explicit XorChunkIterator(std::string_view data);

  // The sample count the chunk's header announces (0 for a chunk shorter than its header).
  uint32_t count() const { return count_; }

  // Moves to the next sample. False at the end of the chunk or on malformed data; status()
  // tells which.
  bool Next();
  int64_t t() const { return t_; }
  double v() const;
  uint64_t value_bits() const { return value_bits_; }
  // OK, or why the chunk could not be read (with the sample index).
  const Status& status() const { return status_; }

 private:
  bool ReadBits(int n, uint64_t& out);
  bool ReadUvarint(uint64_t& out);
  bool ReadValue();
  bool Fail(std::string_view what);

  const uint8_t* p_;
  const uint8_t* end_;
  uint64_t buf_ = 0;  // unread bits, most significant first
  int avail_ = 0;     // how many bits of buf_ are unread
  uint32_t count_ = 0;
  uint32_t read_ = 0;
  int64_t t_ = 0;
  uint64_t t_delta_ = 0;
  uint64_t value_bits_ = 0;
  uint8_t leading_ = 0;
  uint8_t trailing_ = 0;
  Status status_;
};

struct XorSample {
  int64_t t_ms = 0;
  double value = 0;
};

// Encodes up to 65535 samples (in time order) as one XOR chunk, exactly as Prometheus does.
std::string EncodeXorChunk(std::span<const XorSample> samples);

}  // namespace gpucost::promsource
