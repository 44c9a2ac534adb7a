// Spool: the folder of timestamped exposition files that scrapes are appended to and `--input`
// reads back: one file per target per UTC minute, named "<YYYYMMDDTHHMM>Z_<target key>.prom" so
// that the minute can be read from the name and a folder walk (ExpandInputPaths) sorts by time.
// Minutes, not hours, so that a window's reader parses the scrapes it needs and not the rest of
// the hour (hourly files of earlier versions, "<YYYYMMDDTHH>Z_...", are still read and pruned).
//
// Crash safety: a scrape is rendered whole in memory, then appended with one write() to a file
// opened O_APPEND and fsync'd (a new file's folder is fsync'd too). A write that fails part-way is
// truncated back to where the scrape began. A crash during the write can still leave a torn tail;
// the first append to a file after start-up cuts such a tail back to the last newline, and until
// then a reader only sees one malformed last line, which LoadInput reports as a warning and skips.
// A reader of the current minute's file (LoadInput) could see an append in progress; serve holds
// LockForReading() while it loads the files, or scrapes and loads in one thread.
// Thread-safe (appends are serialised).
#pragma once

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
};

class Spool {
 public:
  explicit Spool(std::string dir);

  // Creates the folder (and its parents) when missing.
  Status Open();

  // Appends one scrape's rendered text (whole lines) to the target's file for the minute that
  // holds `scrape_time`.
  Status Append(const ScrapeTarget& target, Instant scrape_time, std::string_view text);

  // The spool files whose minute (or hour) overlaps [window.start - staleness, window.end), in
  // time order, then by target: what to pass as InputFlags::inputs for that window.
  Result<std::vector<std::string>> Files(Window window, Duration staleness) const;

  // Removes spool files whose minute (or hour) ended at or before now - retention.
  Result<PruneStats> Prune(Instant now, Duration retention);

  // Keeps appends and pruning out while held: hold it around LoadInput over Files().
  std::shared_lock<std::shared_mutex> LockForReading() const {
    return std::shared_lock<std::shared_mutex>(mu_);
  }

  const std::string& dir() const { return dir_; }

  // "20261001T1307Z_<key>.prom" for the minute holding `t`.
  static std::string FileName(const ScrapeTarget& target, Instant t);

 private:
  std::string dir_;
  mutable std::shared_mutex mu_;
  std::set<std::string> checked_;  // files whose tail was checked since start-up
};

}  // namespace gpucost::scrape
