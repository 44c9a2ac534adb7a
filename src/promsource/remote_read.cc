#include "promsource/remote_read.h"

#include <snappy.h>

#include <array>
#include <bit>
#include <vector>

#include "core/strings.h"
#include "promsource/proto/remote.pb.h"
#include "promsource/xor_chunk.h"

namespace gpucost::promsource {
namespace {

// Hands samples of consecutive series to the handler, dropping repeats and anything out of time
// order within a series (e.g. chunks that overlap) and anything outside `keep`.
class SeriesEmitter {
 public:
  SeriesEmitter(Window keep, std::span<const std::string_view> metrics, ExpositionHandler& handler,
                RemoteReadStats& stats)
      : keep_start_(UnixMs(keep.start)),
        keep_end_(UnixMs(keep.end)),
        metrics_(metrics),
        handler_(handler),
        stats_(stats) {}

  // Starts a series; a series whose labels equal the previous one continues it (Prometheus
  // splits a long series over several frames).
  template <typename LabelList>
  Status Begin(const LabelList& labels, int64_t query_index) {
    if (query_index < 0 || static_cast<size_t>(query_index) >= metrics_.size()) {
      return Status::ParseError(StrCat("query_index ", query_index, " but the request had ",
                                       metrics_.size(), " queries"));
    }
    key_scratch_.clear();
    for (const auto& l : labels) StrAppendLabel(key_scratch_, l.name(), l.value());
    ++stats_.series;
    if (key_scratch_ == key_ && query_index == query_index_) return Status::Ok();
    key_.swap(key_scratch_);
    series_ = NewSeriesId();
    query_index_ = query_index;
    last_t_ = INT64_MIN;
    has_last_ = false;
    name_ = metrics_[static_cast<size_t>(query_index)];
    labels_.clear();
    // Views point into key_, which stays unchanged while this series lasts.
    size_t pos = 0;
    for (const auto& l : labels) {
      const size_t name_len = l.name().size(), value_len = l.value().size();
      const std::string_view n(key_.data() + pos, name_len);
      const std::string_view v(key_.data() + pos + name_len + 1, value_len);
      pos += name_len + value_len + 2;
      if (n == "__name__") {
        name_ = v;
      } else {
        labels_.push_back(LabelView{n, v});
      }
    }
    return Status::Ok();
  }

  void Sample(int64_t t_ms, uint64_t value_bits) {
    ++stats_.samples;
    if (value_bits == kStaleNaNBits) {
      ++stats_.stale;
      return;
    }
    if (t_ms < keep_start_ || t_ms >= keep_end_) return;
    if (has_last_ && t_ms <= last_t_) return;  // overlap or repeat
    has_last_ = true;
    last_t_ = t_ms;
    SampleView s;
    s.name = name_;
    s.labels = labels_;
    s.series = series_;
    s.value = std::bit_cast<double>(value_bits);
    s.has_timestamp = true;
    s.timestamp_ms = t_ms;
    handler_.OnSample(s);
    ++stats_.kept;
  }

  std::string_view name() const { return name_; }

 private:
  static void StrAppendLabel(std::string& out, const std::string& n, const std::string& v) {
    out.append(n);
    out.push_back('\xff');
    out.append(v);
    out.push_back('\xff');
  }

  int64_t keep_start_, keep_end_;
  std::span<const std::string_view> metrics_;
  ExpositionHandler& handler_;
  RemoteReadStats& stats_;
  std::string key_, key_scratch_;
  int64_t query_index_ = -1;
  uint64_t series_ = 0;
  std::string_view name_;
  std::vector<LabelView> labels_;
  int64_t last_t_ = INT64_MIN;
  bool has_last_ = false;
};

// A SAMPLES response larger than this when decompressed is refused (lower the chunk).
constexpr size_t kMaxSamplesResponseBytes = size_t{1} << 30;

constexpr std::array<uint32_t, 256> MakeCrc32cTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0x82F63B78u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
constexpr std::array<uint32_t, 256> kCrc32cTable = MakeCrc32cTable();

// Reads an unsigned varint at body[pos]; false when truncated or longer than 10 bytes.
bool ReadFrameLength(std::string_view body, size_t& pos, uint64_t& out) {
  out = 0;
  for (int shift = 0; shift < 70 && pos < body.size(); shift += 7) {
    const auto b = static_cast<uint8_t>(body[pos++]);
    if (shift == 63 && b > 1) return false;
    out |= uint64_t{b & 0x7fu} << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace

uint32_t Crc32c(std::string_view data) {
  uint32_t c = 0xffffffffu;
  for (const char ch : data) {
    c = kCrc32cTable[(c ^ static_cast<uint8_t>(ch)) & 0xff] ^ (c >> 8);
  }
  return c ^ 0xffffffffu;
}

std::string BuildReadRequest(std::span<const std::string_view> metrics, Window chunk,
                             std::span<const RemoteReadResponseType> accepted) {
  prompb::ReadRequest req;
  for (const std::string_view metric : metrics) {
    prompb::Query* q = req.add_queries();
    // Both ends are inclusive on the wire; the caller's chunk is [start, end).
    q->set_start_timestamp_ms(UnixMs(chunk.start));
    q->set_end_timestamp_ms(UnixMs(chunk.end) - 1);
    prompb::LabelMatcher* m = q->add_matchers();
    m->set_type(prompb::LabelMatcher::EQ);
    m->set_name("__name__");
    m->set_value(std::string(metric));
    prompb::ReadHints* hints = q->mutable_hints();
    hints->set_start_ms(q->start_timestamp_ms());
    hints->set_end_ms(q->end_timestamp_ms());
  }
  for (const RemoteReadResponseType t : accepted) {
    req.add_accepted_response_types(static_cast<prompb::ReadRequest::ResponseType>(t));
  }
  const std::string raw = req.SerializeAsString();
  std::string compressed;
  snappy::Compress(raw.data(), raw.size(), &compressed);
  return compressed;
}

Result<RemoteReadStats> StreamChunkedReadResponse(std::string_view body, Window keep,
                                                  std::span<const std::string_view> metrics,
                                                  ExpositionHandler& handler) {
  RemoteReadStats stats;
  SeriesEmitter emit(keep, metrics, handler, stats);
  prompb::ChunkedReadResponse frame;
  size_t pos = 0;
  while (pos < body.size()) {
    const size_t frame_at = pos;
    auto where = [&] { return StrCat("remote-read frame ", stats.frames, " at byte ", frame_at); };
    uint64_t length = 0;
    if (!ReadFrameLength(body, pos, length)) {
      return Status::ParseError(StrCat(where(), ": bad length"));
    }
    if (body.size() - pos < 4 || length > body.size() - pos - 4) {
      return Status::ParseError(StrCat(where(), ": ", length, "-byte frame runs past the ",
                                       body.size(), "-byte body"));
    }
    const auto* c = reinterpret_cast<const uint8_t*>(body.data() + pos);
    const uint32_t want_crc = (uint32_t{c[0]} << 24) | (uint32_t{c[1]} << 16) |
                              (uint32_t{c[2]} << 8) | uint32_t{c[3]};
    pos += 4;
    const std::string_view message = body.substr(pos, length);
    pos += length;
    if (const uint32_t got = Crc32c(message); got != want_crc) {
      return Status::ParseError(StrCat(where(), ": CRC32C mismatch"));
    }
    if (!frame.ParseFromArray(message.data(), static_cast<int>(message.size()))) {
      return Status::ParseError(StrCat(where(), ": not a ChunkedReadResponse"));
    }
    ++stats.frames;
    for (const prompb::ChunkedSeries& series : frame.chunked_series()) {
      if (Status s = emit.Begin(series.labels(), frame.query_index()); !s.ok()) {
        return s.WithContext(where());
      }
      for (const prompb::Chunk& chunk : series.chunks()) {
        if (chunk.type() != prompb::Chunk::XOR) {
          ++stats.skipped_chunks;
          continue;
        }
        ++stats.chunks;
        XorChunkIterator it(chunk.data());
        while (it.Next()) emit.Sample(it.t(), it.value_bits());
        if (!it.status().ok()) {
          return it.status().WithContext(StrCat(where(), ": series ", emit.name()));
        }
      }
    }
  }
  return stats;
}

Result<RemoteReadStats> StreamSamplesReadResponse(std::string_view body, Window keep,
                                                  std::span<const std::string_view> metrics,
                                                  ExpositionHandler& handler) {
  size_t raw_size = 0;
  if (!snappy::GetUncompressedLength(body.data(), body.size(), &raw_size)) {
    return Status::ParseError("remote-read response is not snappy-compressed");
  }
  if (raw_size > kMaxSamplesResponseBytes) {
    return Status::ParseError(StrCat("remote-read response would decompress to ", raw_size,
                                     " bytes (more than ", kMaxSamplesResponseBytes,
                                     "; use a shorter chunk)"));
  }
  std::string raw;
  if (!snappy::Uncompress(body.data(), body.size(), &raw)) {
    return Status::ParseError("remote-read response is not snappy-compressed");
  }
  prompb::ReadResponse resp;
  if (!resp.ParseFromString(raw)) {
    return Status::ParseError("remote-read response is not a ReadResponse");
  }
  raw.clear();
  raw.shrink_to_fit();
  RemoteReadStats stats;
  SeriesEmitter emit(keep, metrics, handler, stats);
  for (int q = 0; q < resp.results_size(); ++q) {
    for (const prompb::TimeSeries& ts : resp.results(q).timeseries()) {
      GPUCOST_RETURN_IF_ERROR(emit.Begin(ts.labels(), q));
      for (const prompb::Sample& s : ts.samples()) {
        emit.Sample(s.timestamp(), std::bit_cast<uint64_t>(s.value()));
      }
    }
  }
  return stats;
}

}  // namespace gpucost::promsource
