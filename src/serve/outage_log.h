// OutageLog: a failure that repeats every cycle is logged when it starts, hourly while it goes
// on, again at once when what fails changes, and once when it works again; the metrics
// (gpucost_scrape_errors_total, gpucost_serve_cycle_errors_total) count every occurrence. A
// missing input file or a target that is down says so a few times a day, not 120 times an hour.
// Thread-compatible: one thread (a loop's own) reports to an OutageLog.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "core/time.h"

namespace gpucost::serve {

class OutageLog {
 public:
  // `subject` names what fails in the lines ("scrape", "attribution"); `error`: log failures as
  // errors rather than warnings.
  OutageLog(std::string subject, bool error) : subject_(std::move(subject)), error_(error) {}

  // `key` (a target, a source) failed at `now` with `message`; `context` (what the failure
  // left undone: "2026-10-01T00:00:00Z to 2026-10-01T00:05:00Z") is logged with it but does not
  // make a repeat a new failure.
  void Failed(const std::string& key, std::string_view message, Instant now,
              std::string_view context = {});
  // `key` worked at `now`: one line if it had been failing.
  void Worked(const std::string& key, Instant now);
  // Whether `key` is failing now.
  bool failing(const std::string& key) const { return failing_.count(key) > 0; }

 private:
  struct Failing {
    Instant since, logged;
    uint64_t failures = 0;
    std::string message;  // the last one logged
  };
  void Write(const std::string& line) const;

  std::string subject_;
  bool error_;
  std::map<std::string, Failing, std::less<>> failing_;
};

}  // namespace gpucost::serve
