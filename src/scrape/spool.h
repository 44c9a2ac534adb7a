// Spool: the folder of timestamped exposition files that scrapes are appended to and `--input`
// reads back: one file per target per UTC minute, named "<YYYYMMDDTHHMM>Z_<target key>.prom.zst"
// so that the minute can be read from the name and a folder walk (ExpandInputPaths) sorts by
// time. Each scrape is one zstd frame; frames one after another are one zstd stream, which
// LoadInput reads. Minutes, not hours, so that a window's reader parses the scrapes it needs and
// not the rest of the hour. The files of earlier versions (gzip "....prom.gz", text "....prom",
// per minute or per hour "<YYYYMMDDTHH>Z_...") are still read and pruned.
//
// Crash safety: a scrape is rendered and compressed whole in memory, then appended with one
// write() to a file opened O_APPEND and fsync'd (a new file's folder is fsync'd too). An append
// that fails (a full disk: ENOSPC, EFBIG) is truncated back to where it began, so a file holds
// whole frames only, and that scrape is dropped, never written twice. A crash during the write
// can still leave a torn last frame; the first append to a file after start-up cuts it back to
// its last whole frame, and until then a reader gets the whole frames and one issue for the
// torn one (ParseExposition). A reader of the current minute's file could see an append in
// progress; serve holds LockForReading() while it loads the files, or scrapes and loads in one
// thread.
//
// Bounds: Prune removes the files past the retention, then, while the spool is over its size
// bound, the oldest minutes. Thread-safe (appends are serialised; compression is not).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "scrape/target.h"

namespace gpucost::scrape {

struct PruneStats {
  int files_removed = 0;
  uint64_t bytes_removed = 0;
  // Of those, files removed for the size bound although newer than the retention, and where the
  // oldest of them began: time a back-fill can no longer read.
  int files_over_size = 0;
  Instant over_size_from{};
};

// What the spool holds and what happened to it since Open().
struct SpoolStats {
  uint64_t bytes = 0;  // its files' sizes
  uint64_t files = 0;
  uint64_t write_errors = 0;      // appends that failed (each a scrape dropped)
  uint64_t removed_for_age = 0;   // files pruned past the retention
  uint64_t removed_for_size = 0;  // files pruned for the size bound
};

class Spool {
 public:
  // zstd level 3 with a 16 MiB window (spool_codec.h) keeps a 1,000-node scrape in about 6% of
  // its text (docs/perf.md, "The scrape spool").
  static constexpr int kDefaultZstdLevel = 3;

  explicit Spool(std::string dir, int zstd_level = kDefaultZstdLevel);

  // Creates the folder (and its parents) when missing, and counts what it holds.
  Status Open();

  // Appends one scrape's rendered text (whole lines), as one zstd frame, to the target's file
  // for the minute that holds `scrape_time`. A failure is logged once per target until an append
  // of that target succeeds again, and counted (SpoolStats::write_errors).
  Status Append(const ScrapeTarget& target, Instant scrape_time, std::string_view text);

  // The spool files whose minute (or hour) overlaps [window.start - staleness, window.end), in
  // time order, then by target: what to pass as InputFlags::inputs for that window.
  Result<std::vector<std::string>> Files(Window window, Duration staleness) const;

  // Removes spool files whose minute (or hour) ended at or before now - retention; then, with
  // `max_bytes` > 0, the oldest files until the spool holds at most `max_bytes`.
  Result<PruneStats> Prune(Instant now, Duration retention, uint64_t max_bytes = 0);

  SpoolStats Stats() const;

  // Keeps appends and pruning out while held: hold it around LoadInput over Files().
  std::shared_lock<std::shared_mutex> LockForReading() const {
    return std::shared_lock<std::shared_mutex>(mu_);
  }

  const std::string& dir() const { return dir_; }

  // "20261001T1307Z_<key>.prom.zst" for the minute holding `t`.
  static std::string FileName(const ScrapeTarget& target, Instant t);

 private:
  // Under mu_: appends `frame` to `path`, or leaves the file as it was.
  Status AppendLocked(const std::string& path, std::string_view frame);
  // Under mu_: logs the first failure of a burst and the recovery, per target.
  void NoteOutcome(const ScrapeTarget& target, const Status& status);
  void Removed(uint64_t size);

  std::string dir_;
  int zstd_level_;
  mutable std::shared_mutex mu_;
  std::set<std::string> checked_;  // files whose tail was checked since start-up
  std::map<std::string, uint64_t> failing_;  // per target whose appends fail: how many did
  std::atomic<uint64_t> bytes_{0}, files_{0}, write_errors_{0};
  std::atomic<uint64_t> removed_for_age_{0}, removed_for_size_{0};
};

}  // namespace gpucost::scrape
