#include "promsource/xor_chunk.h"

#include <bit>
#include <cstring>

#include "core/strings.h"

namespace gpucost::promsource {
namespace {

// Writes bits most significant first, as Prometheus' bstream does.
class BitWriter {
 public:
  void WriteBits(uint64_t v, int n) {
    for (int i = n - 1; i >= 0; --i) WriteBit((v >> i) & 1);
  }
  void WriteBit(uint64_t bit) {
    if (free_ == 0) {
      out_.push_back('\0');
      free_ = 8;
    }
    if (bit != 0) out_.back() = static_cast<char>(out_.back() | (1 << (free_ - 1)));
    --free_;
  }
  void WriteByte(uint8_t b) { WriteBits(b, 8); }
  std::string& out() { return out_; }

 private:
  std::string out_;
  int free_ = 0;  // unused bits in the last byte
};

void WriteUvarint(BitWriter& w, uint64_t v) {
  while (v >= 0x80) {
    w.WriteByte(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  w.WriteByte(static_cast<uint8_t>(v));
}

// Whether x fits Prometheus' signed bucket of `nbits` bits: -(2^(n-1) - 1) <= x <= 2^(n-1).
bool FitsBucket(int64_t x, int nbits) {
  const int64_t half = int64_t{1} << (nbits - 1);
  return -(half - 1) <= x && x <= half;
}

void WriteValue(BitWriter& w, uint64_t value, uint64_t previous, uint8_t& leading,
                uint8_t& trailing) {
  const uint64_t delta = value ^ previous;
  if (delta == 0) {
    w.WriteBit(0);
    return;
  }
  w.WriteBit(1);
  auto new_leading = static_cast<uint8_t>(std::countl_zero(delta));
  const auto new_trailing = static_cast<uint8_t>(std::countr_zero(delta));
  if (new_leading >= 32) new_leading = 31;  // the field has 5 bits
  if (leading != 0xff && new_leading >= leading && new_trailing >= trailing) {
    w.WriteBit(0);
    w.WriteBits(delta >> trailing, 64 - leading - trailing);
    return;
  }
  leading = new_leading;
  trailing = new_trailing;
  w.WriteBit(1);
  w.WriteBits(new_leading, 5);
  const int sigbits = 64 - new_leading - new_trailing;
  w.WriteBits(static_cast<uint64_t>(sigbits), 6);  // 64 is written as 0
  w.WriteBits(delta >> new_trailing, sigbits);
}

}  // namespace

XorChunkIterator::XorChunkIterator(std::string_view data)
    : p_(reinterpret_cast<const uint8_t*>(data.data())), end_(p_ + data.size()) {
  if (data.size() < 2) {
    status_ = Status::ParseError(StrCat("XOR chunk of ", data.size(), " bytes has no header"));
    return;
  }
  count_ = (uint32_t{p_[0]} << 8) | p_[1];
  p_ += 2;
}

double XorChunkIterator::v() const { return std::bit_cast<double>(value_bits_); }

bool XorChunkIterator::Fail(std::string_view what) {
  status_ = Status::ParseError(StrCat("XOR chunk sample ", read_, " of ", count_, ": ", what));
  return false;
}

bool XorChunkIterator::ReadBits(int n, uint64_t& out) {
  if (n > 32) {  // two halves, so a refill always has room
    uint64_t hi = 0, lo = 0;
    if (!ReadBits(n - 32, hi) || !ReadBits(32, lo)) return false;
    out = (hi << 32) | lo;
    return true;
  }
  while (avail_ <= 56 && p_ < end_) {
    buf_ |= uint64_t{*p_++} << (56 - avail_);
    avail_ += 8;
  }
  if (avail_ < n) return false;
  out = n == 0 ? 0 : buf_ >> (64 - n);
  buf_ = n == 0 ? buf_ : (n == 64 ? 0 : buf_ << n);
  avail_ -= n;
  return true;
}

bool XorChunkIterator::ReadUvarint(uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    uint64_t byte = 0;
    if (!ReadBits(8, byte)) return false;
    if (shift == 63 && byte > 1) return false;  // more than 64 bits
    out |= (byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

bool XorChunkIterator::ReadValue() {
  uint64_t bit = 0;
  if (!ReadBits(1, bit)) return Fail("truncated value");
  if (bit == 0) return true;  // same value as before
  if (!ReadBits(1, bit)) return Fail("truncated value");
  int mbits = 0;
  uint8_t trailing = trailing_;
  if (bit == 0) {
    mbits = 64 - leading_ - trailing_;
  } else {
    uint64_t leading = 0, sig = 0;
    if (!ReadBits(5, leading) || !ReadBits(6, sig)) return Fail("truncated value header");
    mbits = sig == 0 ? 64 : static_cast<int>(sig);
    if (static_cast<int>(leading) + mbits > 64) {
      return Fail(StrCat("value window of ", leading, " leading zeros and ", mbits,
                         " significant bits exceeds 64 bits"));
    }
    leading_ = static_cast<uint8_t>(leading);
    trailing_ = static_cast<uint8_t>(64 - leading_ - mbits);
    trailing = trailing_;
  }
  uint64_t bits = 0;
  if (!ReadBits(mbits, bits)) return Fail("truncated value bits");
  value_bits_ ^= trailing >= 64 ? 0 : bits << trailing;
  return true;
}

bool XorChunkIterator::Next() {
  if (!status_.ok() || read_ >= count_) return false;
  if (read_ == 0) {
    uint64_t zigzag = 0;
    if (!ReadUvarint(zigzag)) return Fail("bad first timestamp");
    t_ = static_cast<int64_t>(zigzag >> 1) ^ -static_cast<int64_t>(zigzag & 1);
    if (!ReadBits(64, value_bits_)) return Fail("truncated first value");
  } else if (read_ == 1) {
    if (!ReadUvarint(t_delta_)) return Fail("bad timestamp delta");
    t_ = static_cast<int64_t>(static_cast<uint64_t>(t_) + t_delta_);
    if (!ReadValue()) return false;
  } else {
    int prefix = 0;  // how many 1 bits before the 0 (at most 4)
    while (prefix < 4) {
      uint64_t bit = 0;
      if (!ReadBits(1, bit)) return Fail("truncated timestamp");
      if (bit == 0) break;
      ++prefix;
    }
    uint64_t dod = 0;
    if (prefix == 4) {
      if (!ReadBits(64, dod)) return Fail("truncated timestamp");
    } else if (prefix > 0) {
      static constexpr int kBucketBits[] = {0, 14, 17, 20};
      const int size = kBucketBits[prefix];
      if (!ReadBits(size, dod)) return Fail("truncated timestamp");
      // A bucket holds -(2^(size-1) - 1) .. 2^(size-1); larger raw values are negative.
      if (dod > (uint64_t{1} << (size - 1))) dod -= uint64_t{1} << size;
    }
    t_delta_ += dod;  // unsigned arithmetic wraps like Prometheus' int64 does
    t_ = static_cast<int64_t>(static_cast<uint64_t>(t_) + t_delta_);
    if (!ReadValue()) return false;
  }
  ++read_;
  return true;
}

std::string EncodeXorChunk(std::span<const XorSample> samples) {
  BitWriter w;
  const size_t n = std::min<size_t>(samples.size(), 0xffff);
  w.WriteByte(static_cast<uint8_t>(n >> 8));
  w.WriteByte(static_cast<uint8_t>(n & 0xff));
  int64_t t = 0;
  uint64_t t_delta = 0;
  uint64_t v = 0;
  uint8_t leading = 0xff, trailing = 0;
  for (size_t i = 0; i < n; ++i) {
    const int64_t ts = samples[i].t_ms;
    const uint64_t bits = std::bit_cast<uint64_t>(samples[i].value);
    if (i == 0) {
      const auto u = static_cast<uint64_t>(ts);
      WriteUvarint(w, (u << 1) ^ static_cast<uint64_t>(ts >> 63));  // zigzag
      w.WriteBits(bits, 64);
    } else if (i == 1) {
      t_delta = static_cast<uint64_t>(ts) - static_cast<uint64_t>(t);
      WriteUvarint(w, t_delta);
      WriteValue(w, bits, v, leading, trailing);
    } else {
      const uint64_t delta = static_cast<uint64_t>(ts) - static_cast<uint64_t>(t);
      const auto dod = static_cast<int64_t>(delta - t_delta);
      if (dod == 0) {
        w.WriteBit(0);
      } else if (FitsBucket(dod, 14)) {
        w.WriteBits(0b10, 2);
        w.WriteBits(static_cast<uint64_t>(dod), 14);
      } else if (FitsBucket(dod, 17)) {
        w.WriteBits(0b110, 3);
        w.WriteBits(static_cast<uint64_t>(dod), 17);
      } else if (FitsBucket(dod, 20)) {
        w.WriteBits(0b1110, 4);
        w.WriteBits(static_cast<uint64_t>(dod), 20);
      } else {
        w.WriteBits(0b1111, 4);
        w.WriteBits(static_cast<uint64_t>(dod), 64);
      }
      t_delta = delta;
      WriteValue(w, bits, v, leading, trailing);
    }
    t = ts;
    v = bits;
  }
  return std::move(w.out());
}

}  // namespace gpucost::promsource
