// Warnings collected while reading inputs: each names where it comes from (file:line when
// known). Repeats of one kind of warning are folded into the first with a count, so a problem on
// every line of a large file is one warning, not a million. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gpucost {

struct SampleView;

struct InputWarning {
  std::string source;  // file name, "<string>", or "" for whole-input findings
  uint64_t line = 0;   // 0 when not tied to a line
  std::string message;
  uint64_t count = 1;  // occurrences folded into this one
  // "metrics.prom:12: message (and 3 more like it)"
  std::string ToString() const;
};

class Diagnostics {
 public:
  // `kind` groups repeats: the first warning of a kind is kept, later ones only counted.
  void Warn(const std::string& kind, std::string source, uint64_t line, std::string message);
  void Warn(std::string message) { Warn(message, "", 0, message); }
  // A sample's warning: in a file its line says where; from a source without lines (a
  // Prometheus-compatible store, the query API) the series and the sample's time are added.
  void Warn(const std::string& kind, std::string source, const SampleView& s, std::string message);
  const std::vector<InputWarning>& warnings() const { return warnings_; }

 private:
  std::vector<InputWarning> warnings_;
  std::map<std::string, size_t> by_kind_;
};

}  // namespace gpucost
