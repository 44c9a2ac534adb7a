// Helpers for the InventoryBuilder tests: feed hand-written exposition lines straight to the
// builder (no parser involved), build, and look things up in the result.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "inventory/inventory_builder.h"

namespace gpucost::inventory_test {

// Feeds lines `name{a="b",...} value ts_ms` and `# HELP family text` (no escapes).
inline void Feed(InventoryBuilder& b, const std::string& text, const std::string& source = "t.prom") {
  b.BeginSource(source);
  std::istringstream in(text);
  std::string line;
  uint64_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    if (line.starts_with("# HELP ")) {
      const std::string rest = line.substr(7);
      const size_t sp = rest.find(' ');
      b.OnMetadata(MetadataView{MetadataKind::kHelp, std::string_view(rest).substr(0, sp),
                                std::string_view(rest).substr(sp + 1), MetricType::kUnknown, n});
      continue;
    }
    const size_t brace = line.find('{');
    const size_t close = line.find('}');
    std::vector<std::pair<std::string, std::string>> owned;
    std::string labels = line.substr(brace + 1, close - brace - 1);
    size_t pos = 0;
    while (pos < labels.size()) {
      const size_t eq = labels.find('=', pos);
      const size_t q2 = labels.find('"', eq + 2);
      owned.emplace_back(labels.substr(pos, eq - pos), labels.substr(eq + 2, q2 - eq - 2));
      pos = q2 + 2;
    }
    std::vector<LabelView> views;
    for (const auto& [k, v] : owned) views.push_back(LabelView{k, v});
    std::istringstream rest(line.substr(close + 1));
    std::string value_text;
    int64_t ts = 0;
    rest >> value_text >> ts;
    const double value = std::strtod(value_text.c_str(), nullptr);  // "NaN", "+Inf" too
    SampleView s;
    const std::string name = line.substr(0, brace);
    s.name = name;
    s.labels = views;
    s.value = value;
    s.has_timestamp = true;
    s.timestamp_ms = ts;
    s.line = n;
    b.OnSample(s);
  }
}

// `lines` repeated every 30 s from t=0 for `scrapes` scrapes; "%T" stands for the timestamp.
inline std::string Every30s(const std::string& lines, int scrapes, int first = 0) {
  std::string out;
  for (int i = first; i < first + scrapes; ++i) {
    std::string chunk = lines;
    const std::string t = std::to_string(static_cast<int64_t>(i) * 30000);
    for (size_t p = chunk.find("%T"); p != std::string::npos; p = chunk.find("%T")) {
      chunk.replace(p, 2, t);
    }
    out += chunk;
  }
  return out;
}

inline LoadedTimeline Load(const std::string& text, TimelineOptions o = {}) {
  InventoryBuilder b(std::move(o));
  Feed(b, text);
  auto r = b.Build();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

inline const Node* FindNode(const LoadedTimeline& t, const std::string& name) {
  for (const Node& n : t.inventory.nodes) {
    if (n.name == name) return &n;
  }
  return nullptr;
}

inline std::vector<const GpuUnit*> UnitsOf(const LoadedTimeline& t, const std::string& node) {
  std::vector<const GpuUnit*> out;
  for (const GpuUnit& u : t.inventory.units) {
    if (t.inventory.nodes[u.node].name == node) out.push_back(&u);
  }
  return out;
}

inline bool HasWarning(const LoadedTimeline& t, const std::string& needle) {
  for (const InputWarning& w : t.warnings) {
    if (w.ToString().find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace gpucost::inventory_test
