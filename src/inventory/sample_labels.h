// Label look-ups on a parsed sample, shared by the kube-state-metrics, dcgm-exporter and node agent
// readers.
// Empty values count as absent (Prometheus semantics). Stateless and thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/labels.h"
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

// An exporter's own value of a label. When the scrape target carries the same label (a pod scrape
// adds `namespace`, `pod`, `container`, often `node`), Prometheus renames the exporter's to
// `exported_<name>` and the plain one is the exporter pod's own.
inline std::string_view ExporterLabel(const SampleView& s, std::string_view name) {
  for (const LabelView& l : s.labels) {
    if (l.name.size() == name.size() + 9 && l.name.starts_with("exported_") &&
        l.name.ends_with(name) && !l.value.empty()) {
      return l.value;
    }
  }
  return LabelValue(s, name);
}

// The series as written: name{label="value",...}, for warnings that name it.
inline std::string SeriesText(const SampleView& s) {
  std::string out(s.name);
  out += '{';
  for (size_t i = 0; i < s.labels.size(); ++i) {
    if (i > 0) out += ',';
    out.append(s.labels[i].name);
    out += "=\"";
    AppendEscapedLabelValue(out, s.labels[i].value);
    out += '"';
  }
  out += '}';
  return out;
}

}  // namespace gpucost
