// Scrape targets: where an exporter's /metrics is, the job it belongs to, and the labels every
// sample scraped from it gets (when the sample does not carry them already). Static targets come
// from "URL" / "JOB=URL" strings; Kubernetes ones from endpoints_discovery.h. Plain values and
// stateless functions; thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace gpucost::scrape {

struct ScrapeTarget {
  std::string job;
  std::string url;  // "http://host:port/metrics"
  // Added to each scraped sample that lacks the label (or has it empty), after `job` and
  // `instance`: Prometheus's honor_labels, never exported_* renaming, because the dcgm-exporter
  // reader takes plain pod/namespace as the workload's and exported_* as relabelled ones.
  std::map<std::string, std::string> labels;

  friend bool operator==(const ScrapeTarget&, const ScrapeTarget&) = default;
};

inline constexpr std::string_view kDefaultStaticJob = "static";

// "http://host:9400/metrics" or "dcgm=http://host:9400/metrics". A URL without a path gets
// "/metrics". Errors name the spec and what is wrong (scheme, host, port, spaces, job name).
Result<ScrapeTarget> ParseStaticTarget(std::string_view spec,
                                       std::string_view default_job = kDefaultStaticJob);
// Each spec as ParseStaticTarget; a URL given twice is an error.
Result<std::vector<ScrapeTarget>> ParseStaticTargets(const std::vector<std::string>& specs);

// "host:port" of the URL (credentials dropped), Prometheus's `instance` label.
std::string InstanceOf(std::string_view url);

// A stable file-name-safe identity of the target: "<job>_<host-port>_<8 hex of the URL's hash>".
std::string TargetFileKey(const ScrapeTarget& target);

}  // namespace gpucost::scrape
