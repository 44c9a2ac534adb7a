// ParsedFileCache: exposition files parsed once and handed over again from memory. A reader that
// loads overlapping sets of files again and again (serve reads the scrape spool's last minutes
// every cycle, each scrape about six times) parses each file once; later loads replay what the
// parse gave the handler (samples, metadata and malformed lines, in order, with their line
// numbers) without decompressing or tokenizing anything.
//
// Every sample handed over through the cache, parsed or replayed, carries the series id of its
// name and labels in the cache's series table: the same id in every file for as long as a file
// that holds the series is cached, so that a handler may keep what it resolved a series to from
// one file to the next (SampleView::series; ids are unique in the process).
//
// A file is known by its path, size and modification time: one that changed (an append, a
// rewrite) is parsed again. The caller says which files are worth keeping (Retain); a parse that
// would take the cache past its byte bound is not kept. Not thread-safe.
//
//   ParsedFileCache cache;
//   for (const std::string& file : files) cache.Parse(file, options, handler);
//   cache.Retain(files_the_next_load_reads);
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "ingest/exposition.h"

namespace gpucost {

class ParsedFileCache {
 public:
  // 256 MiB holds about 8 million samples: the spool of the last minutes of a 1,000-node,
  // 8,000-GPU cluster several times over (docs/perf.md, "gpucost serve in steady state").
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{256} << 20;

  struct Stats {
    uint64_t files = 0;   // files held
    uint64_t bytes = 0;   // memory they and their series take, estimated
    uint64_t series = 0;  // distinct series held
    uint64_t hits = 0;    // files replayed since the cache was made
    uint64_t misses = 0;  // files parsed since the cache was made
  };

  explicit ParsedFileCache(uint64_t max_bytes = kDefaultMaxBytes);
  ~ParsedFileCache();
  ParsedFileCache(const ParsedFileCache&) = delete;
  ParsedFileCache& operator=(const ParsedFileCache&) = delete;

  // Hands `path`'s samples, metadata and malformed lines to `handler` as ParseExposition would
  // (options.source_name names the file in issues; remember_series is the cache's own), from
  // memory when the file is held and unchanged, otherwise by parsing it and keeping the result.
  // Returns the parse's statistics (a replay's are those of the parse it repeats).
  Result<ParseStats> Parse(const std::string& path, const ParseOptions& options,
                           ExpositionHandler& handler);

  // Forgets every file not in `paths`.
  void Retain(std::span<const std::string> paths);

  Stats stats() const;

 private:
  struct Series;
  struct Recorded;
  class Recorder;

  // The index of the sample's series, made when new; `last` is the series of the sample before
  // (or UINT32_MAX).
  uint32_t Intern(const SampleView& sample, std::string& scratch, uint32_t last);
  void Release(const Recorded& file);
  void Replay(const Recorded& file, ExpositionHandler& handler) const;

  uint64_t max_bytes_;
  std::vector<std::unique_ptr<Series>> series_;  // by index; null: a free slot
  std::vector<uint32_t> free_;
  std::unordered_map<std::string_view, uint32_t> index_;  // Series::key -> index
  std::map<std::string, std::unique_ptr<Recorded>> files_;
  uint64_t series_bytes_ = 0;
  uint64_t file_bytes_ = 0;
  uint64_t hits_ = 0, misses_ = 0;
  uint64_t recordings_ = 0;  // parses recorded: each one's stamp (Series::stamp)
};

}  // namespace gpucost
