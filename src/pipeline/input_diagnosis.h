// Why exposition files gave nothing to attribute, said with where: samples without timestamps
// (a /metrics scrape saved with curl) and what to do about them, or the first lines that could
// not be read. Also --untimestamped-at, which takes such a scrape as one at a given time.
// Stateless and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/status.h"
#include "core/time.h"
#include "inventory/inventory_builder.h"

namespace gpucost {

// --untimestamped-at: "" (unset), a time (RFC 3339 or unix seconds), or "mtime": the newest
// modification time of the files `inputs` names.
Result<std::optional<Instant>> ParseUntimestampedAt(const std::string& text,
                                                    const std::vector<std::string>& inputs);

// The error for files whose `timeline` covers no time: InvalidArgument naming the first
// untimestamped sample's file:line and the remedies, or the first unreadable lines (file:line:
// message) and how many there are.
Status NoTimeInFiles(const LoadedTimeline& timeline);

}  // namespace gpucost
