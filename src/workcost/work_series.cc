#include "workcost/work_series.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/strings.h"
#include "core/time.h"

namespace gpucost::workcost {
namespace {

std::string_view Pick(const LabelSet& labels, const std::string& chosen, std::string_view exported,
                      std::string_view plain) {
  if (!chosen.empty()) return labels.Get(chosen);
  if (labels.Has(exported)) return labels.Get(exported);
  return labels.Get(plain);
}

}  // namespace

namespace {
constexpr double kMaxCounterRise = 9007199254740992.0;  // 2^53
}  // namespace

WorkSeriesCollector::WorkSeriesCollector(WorkSeriesOptions options)
    : options_(std::move(options)) {}

void WorkSeriesCollector::BeginSource(std::string name) { source_ = std::move(name); }

void WorkSeriesCollector::Skip(Skipped& kind, const SampleView& sample, std::string_view what) {
  if (kind.count++ == 0) {
    std::string series(sample.name);
    series += '{';
    for (size_t i = 0; i < sample.labels.size(); ++i) {
      if (i > 0) series += ',';
      series += StrCat(sample.labels[i].name, "=\"", sample.labels[i].value, "\"");
    }
    series += '}';
    kind.first = StrCat(source_, ":", sample.line, ": ", series, ": ", what);
  }
}

void WorkSeriesCollector::OnSample(const SampleView& sample) {
  if (sample.name != options_.metric || sample.is_created) return;
  if (!sample.has_timestamp) return Skip(untimestamped_, sample, "no timestamp");
  if (!std::isfinite(sample.value)) return Skip(not_finite_, sample, "value is NaN or infinite");
  if (sample.value < 0) return Skip(negative_, sample, "negative value (not a counter)");
  std::vector<Label> labels;
  labels.reserve(sample.labels.size());
  for (const LabelView& l : sample.labels) {
    labels.push_back(Label{std::string(l.name), std::string(l.value)});
  }
  Result<LabelSet> made = LabelSet::Make(std::move(labels));
  if (!made.ok()) return Skip(bad_labels_, sample, made.status().message());
  const LabelSet& set = *made;
  auto [it, inserted] = index_.try_emplace(set, series_.size());
  if (inserted) {
    WorkSeries s;
    s.cluster = std::string(set.Get("cluster"));
    if (s.cluster.empty()) s.cluster = options_.default_cluster;
    s.namespace_name =
        std::string(Pick(set, options_.namespace_label, "exported_namespace", "namespace"));
    s.pod = std::string(Pick(set, options_.pod_label, "exported_pod", "pod"));
    s.labels = set;
    s.first_seen = StrCat(source_, ":", sample.line);
    series_.push_back(std::move(s));
  }
  series_[it->second].samples.push_back(CounterSample{sample.timestamp_ms, sample.value});
  ++samples_;
}

std::vector<WorkSeries> WorkSeriesCollector::Finish() {
  for (WorkSeries& s : series_) {
    // Files may hold a series' samples out of order; of two at one instant the first read is
    // kept, as the cost series keep it (series_timeline.cc) and as Prometheus keeps it.
    std::stable_sort(
        s.samples.begin(), s.samples.end(),
        [](const CounterSample& a, const CounterSample& b) { return a.t_ms < b.t_ms; });
    std::vector<CounterSample> unique;
    unique.reserve(s.samples.size());
    for (const CounterSample& c : s.samples) {
      if (!unique.empty() && unique.back().t_ms == c.t_ms) continue;
      // A rise past 2^53 in one step is no count of work (a float64 counter stops counting by
      // ones there): a glitch (one 1e308 sample made every cost per unit $0.0000). Skipped, so
      // the next sample rises from the one before it.
      if (!unique.empty() && c.value - unique.back().value > kMaxCounterRise) {
        if (jumps_.count++ == 0) {
          jumps_.first = StrCat(s.first_seen, ": ", options_.metric, s.labels.ToString(),
                                ": a rise of ", c.value - unique.back().value, " at ",
                                FormatRfc3339(InstantFromUnixMs(c.t_ms)),
                                ", more than a counter counts in one step (2^53)");
        }
        continue;
      }
      unique.push_back(c);
    }
    s.samples = std::move(unique);
  }
  index_.clear();
  return std::move(series_);
}

std::vector<std::string> WorkSeriesCollector::warnings() const {
  std::vector<std::string> out;
  for (const Skipped* k : {&untimestamped_, &not_finite_, &negative_, &bad_labels_, &jumps_}) {
    if (k->count == 0) continue;
    out.push_back(k->count == 1 ? StrCat(k->first, ": skipped")
                                : StrCat(k->first, ": skipped (", k->count, " such samples)"));
  }
  return out;
}

}  // namespace gpucost::workcost
