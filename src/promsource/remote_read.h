// Prometheus remote read (POST /api/v1/read) without the client: building the snappy-compressed
// ReadRequest for one time chunk (one query per metric) and reading either answer a server may
// give: the streamed XOR chunks (frames of uvarint length, big-endian CRC32C and a
// ChunkedReadResponse) or the older SAMPLES form (one snappy-compressed ReadResponse). Samples go
// to an ExpositionHandler exactly as StreamMatrix hands them over from the JSON API: labels
// without __name__, the name from __name__, only timestamps inside `keep`, each series in time
// order, staleness markers dropped (PromQL range selectors drop them too). Memory is the response
// body plus one decoded frame. Stateless functions; thread-compatible.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"
#include "ingest/exposition.h"

namespace gpucost::promsource {

inline constexpr std::string_view kStreamedChunksContentType =
    "application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse";

enum class RemoteReadResponseType { kSamples = 0, kStreamedXorChunks = 1 };

struct RemoteReadStats {
  uint64_t frames = 0;     // streamed frames (0 for a SAMPLES response)
  uint64_t series = 0;     // series in the response (a series split over frames counts again)
  uint64_t chunks = 0;     // XOR chunks decoded
  uint64_t samples = 0;    // decoded
  uint64_t kept = 0;       // handed to the handler
  uint64_t stale = 0;      // staleness markers dropped
  uint64_t skipped_chunks = 0;  // chunks of other encodings (native histograms), not read
};

// The snappy-compressed ReadRequest asking for the samples of each of `metrics` (one Query per
// metric, matching __name__ exactly) with `chunk.start <= t < chunk.end`.
std::string BuildReadRequest(std::span<const std::string_view> metrics, Window chunk,
                             std::span<const RemoteReadResponseType> accepted);

// Decodes a streamed XOR-chunk response. `metrics[query_index]` names series without __name__.
Result<RemoteReadStats> StreamChunkedReadResponse(std::string_view body, Window keep,
                                                  std::span<const std::string_view> metrics,
                                                  ExpositionHandler& handler);

// Decodes a SAMPLES response (a snappy-compressed ReadResponse).
Result<RemoteReadStats> StreamSamplesReadResponse(std::string_view body, Window keep,
                                                  std::span<const std::string_view> metrics,
                                                  ExpositionHandler& handler);

// CRC-32C (Castagnoli), as the stream's frames are checked with.
uint32_t Crc32c(std::string_view data);

}  // namespace gpucost::promsource
