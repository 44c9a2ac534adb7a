#include "pipeline/input_diagnosis.h"

#include <filesystem>
#include <string_view>

#include "core/strings.h"
#include "inventory/timeline_loader.h"

namespace gpucost {
namespace {

// How InventoryBuilder's warning for a sample without a timestamp starts (a test of this
// diagnosis, tests/cli/input_errors_test.cc, fails when the two part).
constexpr std::string_view kUntimestampedWarning = "sample without a timestamp";

// The unreadable lines shown in the error; `gpucost parse` lists them all.
constexpr size_t kShownUnreadableLines = 3;

}  // namespace

Result<std::optional<Instant>> ParseUntimestampedAt(const std::string& text,
                                                    const std::vector<std::string>& inputs) {
  if (text.empty()) return std::optional<Instant>();
  if (text != "mtime") {
    auto t = ParseInstant(text);
    if (!t.ok()) {
      return Status::InvalidArgument(
          StrCat("--untimestamped-at \"", text, "\": a time (RFC 3339 or unix seconds) or mtime"));
    }
    return std::optional<Instant>(*t);
  }
  GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandInputPaths(inputs));
  std::optional<Instant> newest;
  for (const std::string& f : files) {
    if (f == "-") continue;
    std::error_code ec;
    const auto written = std::filesystem::last_write_time(f, ec);
    if (ec) continue;
    const Instant t =
        std::chrono::floor<std::chrono::milliseconds>(std::chrono::file_clock::to_sys(written));
    if (!newest || t > *newest) newest = t;
  }
  if (!newest) {
    return Status::InvalidArgument("--untimestamped-at mtime: no input file to take the time of");
  }
  return newest;
}

Status NoTimeInFiles(const LoadedTimeline& timeline) {
  uint64_t untimestamped = 0;
  const InputWarning* first_untimestamped = nullptr;
  std::vector<const InputWarning*> located;
  uint64_t located_total = 0;
  for (const InputWarning& w : timeline.warnings) {
    if (std::string_view(w.message).starts_with(kUntimestampedWarning)) {
      untimestamped += w.count;
      if (first_untimestamped == nullptr) first_untimestamped = &w;
    } else if (w.line > 0) {
      located_total += w.count;
      if (located.size() < kShownUnreadableLines) located.push_back(&w);
    }
  }
  if (first_untimestamped != nullptr) {
    return Status::InvalidArgument(StrCat(
        first_untimestamped->source, ":", first_untimestamped->line, ": ", untimestamped,
        " samples without a timestamp, so the input covers no time (a /metrics scrape saved as "
        "served?); gpucost attributes series over time. Give --untimestamped-at TIME (or mtime: "
        "the file's modification time) to take them as one scrape at that time, or read the "
        "timestamped series from the store: --prometheus URL --window START,END"));
  }
  std::string message =
      timeline.samples == 0 ? "the input holds no samples" : "the input covers no time";
  if (timeline.parse_errors > 0) {
    message += StrCat(" (", timeline.parse_errors,
                      " malformed lines; `gpucost parse FILE` lists "
                      "them)");
  }
  for (const InputWarning* w : located) message += StrCat("\n  ", w->ToString());
  if (located_total > located.size()) {
    message += StrCat("\n  and ", located_total - located.size(), " more");
  }
  return Status::InvalidArgument(message);
}

}  // namespace gpucost
