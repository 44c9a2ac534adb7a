#include "ingest/parsed_file_cache.h"

#include <sys/stat.h>

#include <cstring>
#include <set>

namespace gpucost {
namespace {

constexpr uint32_t kNoSeries = UINT32_MAX;

constexpr uint8_t kHasTimestamp = 1;
constexpr uint8_t kIsCreated = 2;

void AppendField(std::string& key, std::string_view field) {
  const uint32_t n = static_cast<uint32_t>(field.size());
  key.append(reinterpret_cast<const char*>(&n), sizeof(n));
  key.append(field);
}

std::string_view NextField(std::string_view key, size_t& at) {
  uint32_t n = 0;
  std::memcpy(&n, key.data() + at, sizeof(n));
  const std::string_view field = key.substr(at + sizeof(n), n);
  at += sizeof(n) + n;
  return field;
}

}  // namespace

struct ParsedFileCache::Series {
  std::string key;  // the name and every label, each length-prefixed: owns the views below
  std::string_view name;
  std::vector<LabelView> labels;
  uint64_t id = 0;     // NewSeriesId()
  uint32_t files = 0;  // cached (or being recorded) files that hold the series
  uint64_t stamp = 0;  // the recording that counted it last
  // The series read after this one last time: scrapes list their series in the same order, so
  // it is most likely the next one again (checked against the key, never trusted).
  uint32_t next = kNoSeries;
  uint64_t bytes() const {
    // The index's node and bucket too.
    return sizeof(Series) + key.capacity() + labels.capacity() * sizeof(LabelView) + 64;
  }
};

struct ParsedFileCache::Recorded {
  enum class Kind : uint8_t { kSample, kMetadata, kIssue };
  struct Event {
    int64_t t_ms = 0;
    double value = 0;
    uint64_t line = 0;
    uint32_t index = 0;  // a series, a metadata line or an issue, by kind
    Kind kind = Kind::kSample;
    uint8_t flags = 0;
  };
  struct Metadata {
    MetadataKind kind;
    std::string family, text;
    MetricType type;
    uint64_t line;
  };
  int64_t size = 0;
  int64_t mtime_ns = 0;
  ParseStats stats;
  std::vector<Event> events;
  std::vector<uint32_t> series;  // the distinct series of its samples
  std::vector<Metadata> metadata;
  std::vector<ParseIssue> issues;
  uint64_t bytes() const {
    uint64_t b = sizeof(Recorded) + events.capacity() * sizeof(Event) +
                 series.capacity() * sizeof(uint32_t) + metadata.capacity() * sizeof(Metadata) +
                 issues.capacity() * sizeof(ParseIssue);
    for (const Metadata& m : metadata) b += m.family.capacity() + m.text.capacity();
    for (const ParseIssue& i : issues) b += i.message.capacity();
    return b;
  }
};

// Passes a parse on to the handler with the cache's series, and records it.
class ParsedFileCache::Recorder final : public ExpositionHandler {
 public:
  Recorder(ParsedFileCache& cache, Recorded& file, ExpositionHandler& out, uint64_t stamp)
      : cache_(cache), file_(file), out_(out), stamp_(stamp) {}

  void OnSample(const SampleView& s) override {
    const uint32_t index = cache_.Intern(s, scratch_, last_);
    last_ = index;
    Series& series = *cache_.series_[index];
    if (series.stamp != stamp_) {
      series.stamp = stamp_;
      ++series.files;
      file_.series.push_back(index);
    }
    if (keeping_) {
      file_.events.push_back({s.timestamp_ms, s.value, s.line, index, Recorded::Kind::kSample,
                              static_cast<uint8_t>((s.has_timestamp ? kHasTimestamp : 0) |
                                                   (s.is_created ? kIsCreated : 0))});
      // Checked now and then: the events' growth dominates.
      if ((file_.events.size() & 0xffff) == 0) CheckBound();
    }
    SampleView v = s;
    v.name = series.name;
    v.labels = series.labels;
    v.series = series.id;
    out_.OnSample(v);
  }

  void OnMetadata(const MetadataView& m) override {
    if (keeping_) {
      file_.events.push_back({0, 0, m.line, static_cast<uint32_t>(file_.metadata.size()),
                              Recorded::Kind::kMetadata, 0});
      file_.metadata.push_back(
          {m.kind, std::string(m.family), std::string(m.text), m.type, m.line});
    }
    out_.OnMetadata(m);
  }

  bool OnError(const ParseIssue& issue) override {
    if (keeping_) {
      file_.events.push_back({0, 0, issue.line, static_cast<uint32_t>(file_.issues.size()),
                              Recorded::Kind::kIssue, 0});
      file_.issues.push_back(issue);
    }
    const bool go_on = out_.OnError(issue);
    // A parse the handler stopped is not the file: another handler would have read on.
    if (!go_on) keeping_ = false;
    return go_on;
  }

  // Whether the whole parse was recorded within the cache's bound.
  bool kept() {
    if (keeping_) CheckBound();
    return keeping_;
  }

 private:
  void CheckBound() {
    if (cache_.file_bytes_ + cache_.series_bytes_ + file_.bytes() <= cache_.max_bytes_) return;
    keeping_ = false;
    file_.events = {};
    file_.metadata = {};
    file_.issues = {};
  }

  ParsedFileCache& cache_;
  Recorded& file_;
  ExpositionHandler& out_;
  uint64_t stamp_;
  bool keeping_ = true;
  std::string scratch_;
  uint32_t last_ = kNoSeries;  // the series of the sample before
};

ParsedFileCache::ParsedFileCache(uint64_t max_bytes) : max_bytes_(max_bytes) {}

ParsedFileCache::~ParsedFileCache() = default;

uint32_t ParsedFileCache::Intern(const SampleView& s, std::string& key, uint32_t last) {
  key.clear();
  AppendField(key, s.name);
  for (const LabelView& l : s.labels) {
    AppendField(key, l.name);
    AppendField(key, l.value);
  }
  Series* const before = last == kNoSeries ? nullptr : series_[last].get();
  if (before != nullptr && before->next != kNoSeries) {
    const Series* guess = series_[before->next].get();
    if (guess != nullptr && guess->key == key) return before->next;
  }
  if (const auto it = index_.find(key); it != index_.end()) {
    if (before != nullptr) before->next = it->second;
    return it->second;
  }
  auto series = std::make_unique<Series>();
  series->key = key;
  const std::string_view k = series->key;
  size_t at = 0;
  series->name = NextField(k, at);
  series->labels.reserve(s.labels.size());
  while (at < k.size()) {
    const std::string_view name = NextField(k, at);
    series->labels.push_back({name, NextField(k, at)});
  }
  series->id = NewSeriesId();
  series_bytes_ += series->bytes();
  uint32_t index = 0;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<uint32_t>(series_.size());
    series_.emplace_back();
  }
  index_.emplace(k, index);
  series_[index] = std::move(series);
  if (before != nullptr) before->next = index;
  return index;
}

void ParsedFileCache::Release(const Recorded& file) {
  for (const uint32_t index : file.series) {
    Series& s = *series_[index];
    if (--s.files > 0) continue;
    series_bytes_ -= s.bytes();
    index_.erase(std::string_view(s.key));
    series_[index].reset();
    free_.push_back(index);
  }
}

void ParsedFileCache::Replay(const Recorded& file, ExpositionHandler& handler) const {
  for (const Recorded::Event& e : file.events) {
    switch (e.kind) {
      case Recorded::Kind::kSample: {
        const Series& series = *series_[e.index];
        SampleView v;
        v.name = series.name;
        v.labels = series.labels;
        v.value = e.value;
        v.has_timestamp = (e.flags & kHasTimestamp) != 0;
        v.timestamp_ms = e.t_ms;
        v.line = e.line;
        v.is_created = (e.flags & kIsCreated) != 0;
        v.series = series.id;
        handler.OnSample(v);
        break;
      }
      case Recorded::Kind::kMetadata: {
        const Recorded::Metadata& m = file.metadata[e.index];
        handler.OnMetadata({m.kind, m.family, m.text, m.type, m.line});
        break;
      }
      case Recorded::Kind::kIssue:
        if (!handler.OnError(file.issues[e.index])) return;
        break;
    }
  }
}

Result<ParseStats> ParsedFileCache::Parse(const std::string& path, const ParseOptions& options,
                                          ExpositionHandler& handler) {
  struct stat st {};
  if (options.strict || path == "-" || ::stat(path.c_str(), &st) != 0) {
    // Nothing to know the file by (or a parse that stops at the first error): parsed as it is.
    GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path));
    return ParseExposition(*source, options, handler);
  }
  const int64_t mtime_ns = int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec;
  if (const auto it = files_.find(path); it != files_.end()) {
    if (it->second->size == st.st_size && it->second->mtime_ns == mtime_ns) {
      ++hits_;
      Replay(*it->second, handler);
      return it->second->stats;
    }
    file_bytes_ -= it->second->bytes();
    Release(*it->second);
    files_.erase(it);
  }
  ++misses_;
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(path));
  auto file = std::make_unique<Recorded>();
  file->size = st.st_size;
  file->mtime_ns = mtime_ns;
  Recorder recorder(*this, *file, handler, ++recordings_);
  ParseOptions po = options;
  po.remember_series = false;  // the cache knows series by its own table
  Result<ParseStats> stats = ParseExposition(*source, po, recorder);
  if (!stats.ok() || !recorder.kept()) {
    Release(*file);
    return stats;
  }
  file->stats = *stats;
  file->events.shrink_to_fit();
  file_bytes_ += file->bytes();
  files_.emplace(path, std::move(file));
  return stats;
}

void ParsedFileCache::Retain(std::span<const std::string> paths) {
  const std::set<std::string_view> keep(paths.begin(), paths.end());
  for (auto it = files_.begin(); it != files_.end();) {
    if (keep.contains(it->first)) {
      ++it;
      continue;
    }
    file_bytes_ -= it->second->bytes();
    Release(*it->second);
    it = files_.erase(it);
  }
}

ParsedFileCache::Stats ParsedFileCache::stats() const {
  Stats s;
  s.files = files_.size();
  s.bytes = file_bytes_ + series_bytes_;
  s.series = index_.size();
  s.hits = hits_;
  s.misses = misses_;
  return s;
}

}  // namespace gpucost
