// libFuzzer target for the XOR chunk decoder (remote read hands it bytes from the network):
// any input must decode to samples or to an error, never crash, hang or read out of bounds; and
// whatever decodes must survive a round trip through the encoder bit for bit.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "promsource/xor_chunk.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gpucost::promsource::XorChunkIterator;
  using gpucost::promsource::XorSample;
  const std::string_view chunk(reinterpret_cast<const char*>(data), size);
  XorChunkIterator it(chunk);
  std::vector<XorSample> samples;
  std::vector<uint64_t> bits;
  while (it.Next()) {
    samples.push_back({it.t(), it.v()});
    bits.push_back(it.value_bits());
  }
  if (samples.size() > it.count()) std::abort();
  if (!it.status().ok() || samples.empty()) return 0;
  const std::string again = gpucost::promsource::EncodeXorChunk(samples);
  XorChunkIterator re(again);
  size_t i = 0;
  while (re.Next()) {
    if (i >= samples.size() || re.t() != samples[i].t_ms || re.value_bits() != bits[i]) {
      std::abort();
    }
    ++i;
  }
  if (!re.status().ok() || i != samples.size()) std::abort();
  return 0;
}
