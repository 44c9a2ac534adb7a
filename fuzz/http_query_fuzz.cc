// Feeds arbitrary bytes, read as a URL query string (`window=...&by=label:%FF&cluster=a,b`,
// percent-decoded, so any byte can be in a value), to the parsers of serve's HTTP API: the
// /api/v1/report query (window, by, accumulate, rollups, cluster), OpenCost's filter language
// (the filter parameter of /allocation, matched against records of names that are not UTF-8)
// and durations (its step). Checks that nothing crashes, that an error's JSON body is UTF-8 and
// parses back to the message, and that what parses is sound: dimension names print as
// themselves, cluster names are trimmed and not empty.
#include <cstdint>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings.h"
#include "core/utf8.h"
#include "report/report_query.h"
#include "serve/opencost_filter.h"

namespace {

using namespace gpucost;

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX is the byte XX and + a space, as an HTTP server decodes a query; a bad escape stays as is.
std::string Decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && HexDigit(s[i + 1]) >= 0 &&
               HexDigit(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigit(s[i + 1]) * 16 + HexDigit(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The first value of each parameter, as serve reads them.
std::map<std::string, std::string> Params(std::string_view query) {
  std::map<std::string, std::string> out;
  for (std::string_view part : Split(query, '&')) {
    const size_t eq = part.find('=');
    const std::string name = Decode(part.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? "" : Decode(part.substr(eq + 1));
    out.emplace(name, value);
  }
  return out;
}

// An error's body is JSON, UTF-8, and says the message.
void RequireErrorBody(std::string_view message) {
  const std::string body = JsonErrorBody(message);
  try {
    (void)nlohmann::json(body).dump();  // strict: throws on ill-formed UTF-8
    const nlohmann::json doc = nlohmann::json::parse(body);
    if (doc.at("error").get<std::string>() != ValidUtf8(message)) std::abort();
  } catch (const nlohmann::json::exception&) {
    std::abort();
  }
}

// Records of holders whose names and labels are not UTF-8, and one of idle capacity.
struct Records {
  Inventory inventory;
  std::vector<CostRecord> records;
  Records() {
    Node n;
    n.cluster = "east\xff";
    n.name = "gpu-\xc3";
    inventory.nodes.push_back(n);
    GpuUnit u;
    u.node = 0;
    inventory.units.push_back(u);
    for (const char* ns : {"research-\xff\xfe", "ml", ""}) {
      Holder h;
      h.cluster = n.cluster;
      h.namespace_name = ns;
      h.pod = std::string(ns) + "-0";
      h.container = "main\n";
      h.workload = ns;
      h.workload_kind = "Job";
      h.team = "t\xe2\x82";
      h.labels = LabelSet{{"app", "a\xff"}, {"app.kubernetes.io/name", "\x1b[2J"}};
      inventory.holders.push_back(h);
    }
    for (HolderIndex h : {HolderIndex{0}, HolderIndex{1}, HolderIndex{2}, kNoIndex}) {
      CostRecord r;
      r.unit = 0;
      r.holder = h;
      r.gpu_hours = 1;
      records.push_back(r);
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Records kRecords;
  const std::map<std::string, std::string> params =
      Params(std::string_view(reinterpret_cast<const char*>(data), size));
  const auto param = [&params](const std::string& name) -> std::optional<std::string> {
    const auto it = params.find(name);
    if (it == params.end()) return std::nullopt;
    return it->second;
  };

  // /api/v1/report
  const Result<ReportQuery> query = ParseReportQuery(param);
  if (!query.ok()) {
    RequireErrorBody(query.status().message());
  } else {
    if (query->by.empty()) std::abort();
    for (const Dimension& d : query->by) {
      if (PrintableText(d.Name()) != d.Name()) std::abort();
    }
    for (const std::string& c : query->clusters) {
      if (c.empty() || Trim(c) != c) std::abort();
    }
    // Roll-ups answer one accumulated bucket or step= buckets, never raw steps.
    if (query->rollups && !query->accumulate && query->step.count() <= 0) std::abort();
  }

  // /allocation's filter
  const Result<serve::AllocationFilter> filter =
      serve::AllocationFilter::Parse(param("filter").value_or(""));
  if (!filter.ok()) {
    RequireErrorBody(filter.status().message());
  } else {
    for (const CostRecord& r : kRecords.records) (void)filter->Matches(kRecords.inventory, r);
  }

  // /allocation's step and aggregate (label:KEY reaches ParseDimensions as it came)
  if (const std::optional<std::string> step = param("step")) {
    const Result<Duration> d = ParseDuration(*step);
    if (!d.ok()) RequireErrorBody(d.status().message());
  }
  if (const std::optional<std::string> aggregate = param("aggregate")) {
    const Result<std::vector<Dimension>> dims = ParseDimensions(*aggregate);
    if (!dims.ok()) RequireErrorBody(dims.status().message());
  }
  return 0;
}
