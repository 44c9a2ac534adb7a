// Label look-ups on a parsed sample, shared by the kube-state-metrics and dcgm-exporter readers.
// Empty values count as absent (Prometheus semantics). Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "ingest/exposition.h"

namespace gpucost {

inline std::string_view LabelValue(const SampleView& s, std::string_view name) {
  for (const LabelView& l : s.labels) {
    if (l.name == name) return l.value;
  }
  return {};
}

inline std::string LabelString(const SampleView& s, std::string_view name) {
  return std::string(LabelValue(s, name));
}

}  // namespace gpucost
