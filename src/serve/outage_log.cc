#include "serve/outage_log.h"

#include <chrono>

#include "core/log.h"
#include "core/strings.h"

namespace gpucost::serve {

void OutageLog::Write(const std::string& line) const {
  if (error_) {
    LogError(line);
  } else {
    LogWarn(line);
  }
}

void OutageLog::Failed(const std::string& key, std::string_view message, Instant now,
                       std::string_view context) {
  const std::string where = context.empty() ? std::string() : StrCat(context, ": ");
  const auto it = failing_.find(key);
  if (it == failing_.end()) {
    failing_.emplace(key, Failing{now, now, 1, std::string(message)});
    Write(StrCat("gpucost serve: ", subject_, ": ", where, message,
                 " (logged again hourly while it fails, and when it works again)"));
    return;
  }
  Failing& f = it->second;
  ++f.failures;
  if (message == f.message && now - f.logged < std::chrono::hours(1)) return;
  f.logged = now;
  f.message = std::string(message);
  Write(StrCat("gpucost serve: ", subject_, ": still failing, ", f.failures, " times since ",
               FormatRfc3339(f.since), ": ", where, message));
}

void OutageLog::Worked(const std::string& key, Instant now) {
  const auto it = failing_.find(key);
  if (it == failing_.end()) return;
  const Failing& f = it->second;
  LogInfo(StrCat("gpucost serve: ", subject_, ": ", key, " works again, after ", f.failures,
                 f.failures == 1 ? " failure" : " failures", " since ", FormatRfc3339(f.since),
                 " (", FormatDuration(now - f.since), ")"));
  failing_.erase(it);
}

}  // namespace gpucost::serve
