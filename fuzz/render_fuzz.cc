// Builds a small cluster whose names, label values and a label key are arbitrary bytes, and
// renders what gpucost prints of it in every format: the report's table, CSV and JSON, FOCUS,
// the chargeback statement's text, Markdown, CSV, JSON and HTML, exported OpenMetrics label
// values (read back by the exposition parser) and a remote-write request (decoded again).
// Checks that nothing crashes, that every output is UTF-8 (docs/report.md, "Text that is not
// UTF-8"), that JSON parses, and that the table keeps one line per row.
//
// Input: FuzzedDataProvider fields; strings end at a backslash followed by any other character
// ("\\" is a backslash), so a seed reads as `cluster\ node\ model\ ...`.
#include <fuzzer/FuzzedDataProvider.h>
#include <snappy.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "chargeback/period.h"
#include "chargeback/render.h"
#include "chargeback/statement_builder.h"
#include "core/labels.h"
#include "core/utf8.h"
#include "ingest/exposition.h"
#include "promsource/proto/remote.pb.h"
#include "promsource/remote_write.h"
#include "report/aggregator.h"
#include "report/focus_export.h"
#include "report/render.h"

namespace {

using namespace gpucost;

// The JSON library's strict serializer throws on any ill-formed UTF-8: a check that owes
// nothing to core/utf8.h.
void RequireUtf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
  } catch (const nlohmann::json::type_error&) {
    std::abort();
  }
}

void RequireJson(const std::string& text) {
  RequireUtf8(text);
  if (!nlohmann::json::accept(text)) std::abort();
}

const Instant kStart = InstantFromUnixMs(1'790'812'800'000);  // 2026-10-01T00:00:00Z
const Window kWindow{kStart, kStart + std::chrono::hours(2)};

struct Cluster {
  Inventory inventory;
  std::vector<CostRecord> records;
  std::string label_key;  // a key from the input, when ParseDimension takes it
};

Cluster MakeCluster(FuzzedDataProvider& in) {
  Cluster c;
  const auto text = [&in] { return in.ConsumeRandomLengthString(64); };
  const int nodes = in.ConsumeIntegralInRange(1, 3);
  for (int i = 0; i < nodes; ++i) {
    Node n;
    n.cluster = text();
    n.name = text();
    n.gpu_model = text();
    n.capacity_type = text();
    n.instance_type = text();
    n.region = text();
    n.provider_id = text();
    n.physical_gpus = 1;
    n.labels = LabelSet{{"pool", text()}};
    c.inventory.nodes.push_back(std::move(n));
    GpuUnit u;
    u.node = static_cast<NodeIndex>(i);
    u.gpu_uuid = text();
    u.gpu_model = c.inventory.nodes.back().gpu_model;
    c.inventory.units.push_back(std::move(u));
  }
  c.label_key = text();
  const int holders = in.ConsumeIntegralInRange(1, 4);
  for (int i = 0; i < holders; ++i) {
    Holder h;
    h.cluster = c.inventory.nodes[0].cluster;
    h.namespace_name = text();
    h.pod = text();
    h.container = text();
    h.workload = text();
    h.workload_kind = text();
    h.team = text();
    std::vector<Label> labels = {{"app", text()}};
    if (c.label_key != "app") labels.push_back({c.label_key, text()});
    Result<LabelSet> set = LabelSet::Make(std::move(labels));
    if (set.ok()) h.labels = std::move(*set);
    c.inventory.holders.push_back(std::move(h));
  }
  // One held record per holder and step, and the idle rest of each unit.
  for (int64_t step = 0; step < 2; ++step) {
    for (size_t u = 0; u < c.inventory.units.size(); ++u) {
      double held = 0;
      for (size_t h = u; h < c.inventory.holders.size(); h += c.inventory.units.size()) {
        CostRecord r;
        r.step = step;
        r.unit = static_cast<UnitIndex>(u);
        r.holder = static_cast<HolderIndex>(h);
        r.gpu_hours = 0.25;
        r.allocated_usd = 1.0;
        r.price_source = PriceSource::kDefault;
        const double busy = in.ConsumeProbability<double>();
        r.effective_usd = busy;
        r.activity_gpu_hours = 0.25 * busy;
        held += r.gpu_hours;
        c.records.push_back(r);
      }
      CostRecord idle;
      idle.step = step;
      idle.unit = static_cast<UnitIndex>(u);
      idle.holder = kNoIndex;
      idle.gpu_hours = 1.0 - held;
      idle.allocated_usd = 4.0 * idle.gpu_hours;
      idle.price_source = PriceSource::kDefault;
      if (idle.gpu_hours > 0) c.records.push_back(idle);
    }
  }
  return c;
}

void RenderReports(const Cluster& c, bool accumulate) {
  AggregatorOptions options;
  options.window = kWindow;
  options.engine_step = std::chrono::hours(1);
  options.accumulate = accumulate;
  std::string by =
      "cluster,node,namespace,team,workload,workload_kind,pod,container,gpu_model,"
      "capacity_type,label:app,label:pool";
  // A key that is not UTF-8 text is an error with a readable message; any other is a column.
  Result<std::vector<Dimension>> dims = ParseDimensions(by + ",label:" + c.label_key);
  if (!dims.ok()) {
    RequireUtf8(std::string(dims.status().message()));
    dims = ParseDimensions(by);
  }
  if (!dims.ok()) std::abort();
  options.by = *dims;
  Result<Aggregator> aggregator = Aggregator::Create(c.inventory, options);
  if (!aggregator.ok()) std::abort();
  aggregator->Consume(c.records);
  const Report report = aggregator->Finish();

  const std::string table = RenderToString(report, OutputFormat::kTable);
  RequireUtf8(table);
  // header, one line per row, the rule, the total: no value breaks a line.
  std::istringstream lines(table);
  std::string line;
  for (size_t i = 0; i <= report.rows.size() + 1 && std::getline(lines, line); ++i) {
    if (i == report.rows.size() + 1 && line.find_first_not_of('-') != std::string::npos) {
      std::abort();
    }
  }
  RequireUtf8(RenderToString(report, OutputFormat::kCsv));
  const std::string json = RenderToString(report, OutputFormat::kJson);
  RequireJson(json);
  if (nlohmann::json::parse(json)["rows"].size() != report.rows.size()) std::abort();
}

void RenderFocus(const Cluster& c) {
  FocusOptions options;
  options.window = kWindow;
  options.engine_step = std::chrono::hours(1);
  const PriceFn price = [](const Node&, Window w) {
    return std::vector<PricePeriod>{
        PricePeriod{Interval{w.start, w.end}, 4.0, PriceSource::kDefault, w.start, "fuzz"}};
  };
  Result<FocusExporter> exporter = FocusExporter::Create(c.inventory, price, options);
  if (!exporter.ok()) std::abort();
  exporter->Consume(c.records);
  Result<FocusTable> table = exporter->Finish();
  if (!table.ok()) {
    RequireUtf8(std::string(table.status().message()));
    return;
  }
  std::ostringstream out;
  WriteFocusCsv(*table, out);
  RequireUtf8(out.str());
}

void RenderStatements(const Cluster& c) {
  chargeback::StatementBuilder builder(chargeback::WindowPeriod(kWindow), {});
  for (const CostRecord& r : c.records) {
    if (r.holder == kNoIndex) continue;
    const Holder& h = c.inventory.holders[r.holder];
    const Node& n = c.inventory.nodes[c.inventory.units[r.unit].node];
    chargeback::ChargeLabels labels{h.team,          h.namespace_name, h.workload,
                                    h.workload_kind, n.gpu_model,      n.capacity_type};
    chargeback::ChargeAmounts amounts;
    amounts.start = kWindow.start + r.step * std::chrono::hours(1);
    amounts.gpu_hours = r.gpu_hours;
    amounts.allocated_usd = r.allocated_usd;
    amounts.effective_usd = r.effective_usd;
    amounts.used_gpu_hours = r.activity_gpu_hours;
    builder.Add(labels, amounts);
  }
  Result<chargeback::StatementSet> set = builder.Finish({});
  if (!set.ok()) return;
  for (auto f : {chargeback::StatementFormat::kText, chargeback::StatementFormat::kMarkdown,
                 chargeback::StatementFormat::kCsv, chargeback::StatementFormat::kHtml}) {
    RequireUtf8(chargeback::RenderStatementsToString(*set, f));
  }
  RequireJson(chargeback::RenderStatementsToString(*set, chargeback::StatementFormat::kJson));
}

class LabelValues final : public ExpositionHandler {
 public:
  void OnSample(const SampleView& s) override {
    for (const LabelView& l : s.labels) values.emplace_back(l.value);
  }
  bool OnError(const ParseIssue&) override {
    ++errors;
    return true;
  }
  std::vector<std::string> values;
  int errors = 0;
};

// What serve's /metrics writes of each value reads back as the value with U+FFFD.
void RenderOpenMetrics(const Cluster& c) {
  std::vector<std::string> want;
  std::string text;
  for (const Holder& h : c.inventory.holders) {
    text += "gpucost_allocated_gpus{namespace=\"";
    AppendExportedLabelValue(text, h.namespace_name);
    text += "\",team=\"";
    AppendExportedLabelValue(text, h.team);
    text += "\"} 1\n";
    want.push_back(ValidUtf8(h.namespace_name));
    want.push_back(ValidUtf8(h.team));
  }
  RequireUtf8(text);
  std::unique_ptr<ByteSource> source = StringByteSource(text, "fuzz");
  LabelValues got;
  ParseOptions options;
  options.format = ExpositionFormat::kText;
  if (!ParseExposition(*source, options, got).ok() || got.errors != 0) std::abort();
  if (got.values != want) std::abort();
}

// A remote-write request decodes (protobuf strings are UTF-8) to the values with U+FFFD.
void RenderRemoteWrite(const Cluster& c) {
  std::vector<promsource::WriteSeries> series;
  for (const Holder& h : c.inventory.holders) {
    promsource::WriteSeries s;
    s.labels = {
        {"__name__", "gpucost_allocated_gpus"}, {"namespace", h.namespace_name}, {"pod", h.pod}};
    s.samples = {{1'790'812'800'000, 1.0}};
    series.push_back(std::move(s));
  }
  const std::string body = promsource::EncodeWriteRequest(series);
  std::string raw;
  if (!snappy::Uncompress(body.data(), body.size(), &raw)) std::abort();
  prompb::WriteRequest request;
  if (!request.ParseFromString(raw)) std::abort();
  for (const prompb::TimeSeries& ts : request.timeseries()) {
    for (const prompb::Label& l : ts.labels()) {
      RequireUtf8(l.name());
      RequireUtf8(l.value());
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const Cluster c = MakeCluster(in);
  RenderReports(c, true);
  RenderReports(c, false);
  RenderFocus(c);
  RenderStatements(c);
  RenderOpenMetrics(c);
  RenderRemoteWrite(c);
  return 0;
}
