// Loading inventory and usage timelines from exposition files: each path is a file ("-" is
// stdin, .gz is decompressed) or a folder walked recursively for *.prom, *.txt, *.om,
// *.openmetrics (and their .gz), in sorted order. Malformed lines become warnings with file:line;
// everything else is kept. Thread-compatible.
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "ingest/parsed_file_cache.h"
#include "inventory/inventory_builder.h"

namespace gpucost {

// The files `paths_or_dirs` stands for, folders expanded, in the order they will be read.
Result<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths_or_dirs);

// With `cache`, files it holds from an earlier load are replayed rather than parsed, and the
// files parsed are kept in it (ParsedFileCache; the caller Retains what its next load reads).
Result<LoadedTimeline> LoadTimelineFromFiles(const std::vector<std::string>& paths_or_dirs,
                                             const TimelineOptions& options,
                                             ParsedFileCache* cache = nullptr);

// The same for exposition text already in memory (e.g. the demo's generated OpenMetrics).
Result<LoadedTimeline> LoadTimelineFromText(std::string text, const TimelineOptions& options,
                                            std::string source_name = "<string>");

}  // namespace gpucost
