#include "inventory/timeline_loader.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "core/strings.h"

namespace gpucost {
namespace {

bool IsExpositionFile(const std::filesystem::path& p) {
  std::string name = p.filename().string();
  for (std::string_view compressed : {".gz", ".zst"}) {
    if (name.ends_with(compressed)) name.resize(name.size() - compressed.size());
  }
  for (std::string_view ext : {".prom", ".txt", ".om", ".openmetrics"}) {
    if (name.ends_with(ext)) return true;
  }
  return false;
}

}  // namespace

Status InventoryBuilder::AddText(std::string text, std::string source_name) {
  BeginSource(source_name);
  auto source = StringByteSource(std::move(text), source_name);
  ParseOptions po;
  po.source_name = std::move(source_name);
  po.remember_series = true;
  auto stats = ParseExposition(*source, po, *this);
  return stats.ok() ? Status::Ok() : std::move(stats).status();
}

Result<std::vector<std::string>> ExpandInputPaths(const std::vector<std::string>& paths_or_dirs) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const std::string& p : paths_or_dirs) {
    std::error_code ec;
    if (p != "-" && fs::is_directory(p, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(p, ec); !ec && it != fs::end(it);
           it.increment(ec)) {
        if (it->is_regular_file(ec) && IsExpositionFile(it->path())) {
          found.push_back(it->path().string());
        }
      }
      if (ec) return Status::IoError(StrCat(p, ": ", ec.message()));
      if (found.empty()) {
        return Status::NotFound(StrCat(p,
                                       ": a directory with no input files in it (read: *.prom, "
                                       "*.txt, *.om, *.openmetrics, each also .gz or .zst)"));
      }
      std::sort(found.begin(), found.end());
      out.insert(out.end(), found.begin(), found.end());
    } else if (p == "-" || fs::exists(p, ec)) {
      out.push_back(p);
    } else {
      return Status::NotFound(StrCat(p, ": no such file or directory"));
    }
  }
  return out;
}

Result<LoadedTimeline> LoadTimelineFromFiles(const std::vector<std::string>& paths_or_dirs,
                                             const TimelineOptions& options,
                                             ParsedFileCache* cache) {
  GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandInputPaths(paths_or_dirs));
  InventoryBuilder builder(options);
  for (const std::string& file : files) {
    ParseOptions po;
    po.source_name = file;
    if (cache != nullptr) {
      // The cache's series ids hold from one file to the next.
      builder.BeginSource(file, SeriesIds::kCarryOver);
      auto stats = cache->Parse(file, po, builder);
      if (!stats.ok()) return std::move(stats).status();
      continue;
    }
    GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenByteSource(file));
    builder.BeginSource(file);
    po.remember_series = true;  // the readers find series by id
    auto stats = ParseExposition(*source, po, builder);
    if (!stats.ok()) return std::move(stats).status();
  }
  return builder.Build();
}

Result<LoadedTimeline> LoadTimelineFromText(std::string text, const TimelineOptions& options,
                                            std::string source_name) {
  InventoryBuilder builder(options);
  GPUCOST_RETURN_IF_ERROR(builder.AddText(std::move(text), std::move(source_name)));
  return builder.Build();
}

}  // namespace gpucost
