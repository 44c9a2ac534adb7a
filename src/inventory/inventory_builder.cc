#include "inventory/inventory_builder.h"

#include <algorithm>
#include <set>

#include "core/strings.h"
#include "inventory/assembly.h"

namespace gpucost {

InventoryBuilder::InventoryBuilder(TimelineOptions options)
    : options_(std::move(options)),
      ksm_(options_.cluster),
      dcgm_(options_.cluster, options_.dcgm_pod_labels),
      agent_(options_.cluster),
      hami_(options_.cluster),
      neuron_(options_.cluster),
      kube_(std::move(options_.kube_states)) {
  for (const KubeState& k : kube_) ksm_.AddDeviceClasses(k);
  // Which seconds of the window (and the lookback before it) have a sample: only a window's
  // are asked about, and an input's span is unbounded.
  if (options_.window) {
    sampled_ = SecondMarks(UnixMs(options_.window->start - SampleLookback(options_.staleness)),
                           UnixMs(options_.window->end));
  }
}

InventoryBuilder::~InventoryBuilder() = default;

void InventoryBuilder::BeginSource(std::string name, SeriesIds ids) {
  source_ = std::move(name);
  source_errors_ = 0;
  if (ids == SeriesIds::kPerSource) ksm_.BeginSource();
  dcgm_.BeginSource(/*keep_series=*/ids == SeriesIds::kCarryOver);
}

void InventoryBuilder::OnMetadata(const MetadataView& metadata) { dcgm_.OnMetadata(metadata); }

bool InventoryBuilder::OnError(const ParseIssue& issue) {
  if (issue.cut_short) agent_.SourceCutShort(source_);
  if (issue.damaged) {
    // The file's, never folded into its malformed lines: damage found at a gzip member's end (its
    // check) comes after the damaged part was read, whose lines may have parsed into wrong values.
    diag_.Warn(StrCat("damaged:", source_), source_, issue.line,
               StrCat(issue.message,
                      "; what was read of the damaged part may be wrong: check the "
                      "file (gzip -t or zstd -t) and read a good copy"));
    return true;
  }
  ++errors_;  // malformed lines (the damage above is said apart)
  // The first malformed lines of a file each on their own; the rest folded into one with a
  // count, so that a file of garbage does not bury the warnings about money (`gpucost parse`
  // lists every one).
  const bool own = ++source_errors_ <= kMalformedLinesShown;
  diag_.Warn(own ? StrCat("parse:", source_, ":", issue.line) : StrCat("parse:", source_), source_,
             issue.line, issue.message);
  return true;
}

void InventoryBuilder::OnSample(const SampleView& sample) {
  if (sample.is_created) return;
  ++samples_;
  int64_t t_ms = sample.timestamp_ms;
  if (!sample.has_timestamp) {
    if (!options_.untimestamped_at) {
      diag_.Warn("no-timestamp", source_, sample,
                 "sample without a timestamp skipped (give the scrape time to use such input)");
      return;
    }
    t_ms = UnixMs(*options_.untimestamped_at);
  }
  if (options_.plausible_times && !options_.plausible_times->Contains(InstantFromUnixMs(t_ms))) {
    diag_.Warn("implausible-time", source_, sample,
               StrCat(sample.name, " is timestamped ", FormatRfc3339(InstantFromUnixMs(t_ms)),
                      ", outside ", FormatRfc3339(options_.plausible_times->start), " to ",
                      FormatRfc3339(options_.plausible_times->end),
                      " (seconds given as milliseconds, or the reverse?); sample skipped"));
    return;
  }
  const bool used = ksm_.OnSample(sample, t_ms, source_, diag_) ||
                    dcgm_.OnSample(sample, t_ms, source_, diag_) ||
                    agent_.OnSample(sample, t_ms, source_, diag_) ||
                    hami_.OnSample(sample, t_ms, source_, diag_) ||
                    neuron_.OnSample(sample, t_ms, source_, diag_);
  if (!used) return;
  sampled_.Add(t_ms);
  sample_hours_.Add(t_ms);
  min_t_ms_ = std::min(min_t_ms_, t_ms);
  max_t_ms_ = std::max(max_t_ms_, t_ms);
}

void InventoryBuilder::AddKubeState(KubeState state) {
  ksm_.AddDeviceClasses(state);
  kube_.push_back(std::move(state));
}

Result<LoadedTimeline> InventoryBuilder::Build() {
  if (built_) return Status::FailedPrecondition("InventoryBuilder::Build called twice");
  built_ = true;
  ksm_.Finish(diag_);
  dcgm_.Finish(diag_);
  agent_.Finish(diag_);
  hami_.Finish(diag_);
  LoadedTimeline out;
  out.samples = samples_;
  out.sampled = std::move(sampled_);
  out.parse_errors = errors_;
  if (options_.staleness <= Duration(0) || options_.default_scrape_interval <= Duration(0)) {
    return Status::InvalidArgument("staleness and default scrape interval must be positive");
  }
  SparseSeriesNote sparse;
  PresenceOptions presence{options_.default_scrape_interval, options_.staleness, &sparse};
  // A series seen once takes the input's own scrape interval where its nodes show one, not the
  // setting: a pod first seen just before the window's end is held as long whether the source
  // also holds the scrapes after the window (files) or not (a fetch cut at the window's end).
  {
    std::vector<int64_t> intervals;
    for (const auto& [k, n] : ksm_.data().nodes) {
      if (n.seen.size() >= 2) intervals.push_back(EstimateInterval(n.seen, presence).count());
    }
    if (!intervals.empty()) {
      std::nth_element(intervals.begin(), intervals.begin() + intervals.size() / 2,
                       intervals.end());
      presence.default_interval = Duration(intervals[intervals.size() / 2]);
      presence.default_learned = true;
    }
  }
  // With no samples at all, the span is the API's: its GPU pods' lifetimes, or without any (GPUs
  // that nothing ran on are still the API's data) its GPU nodes' within the window asked for;
  // without a window such nodes give none (a node made years ago must not cost years). With
  // samples it is theirs alone (a pod running for weeks must not stretch a report of an hour's
  // files).
  const auto widen = [&](const std::vector<Interval>& intervals) {
    for (const Interval& iv : intervals) {
      if (iv.end <= iv.start) continue;
      min_t_ms_ = std::min(min_t_ms_, UnixMs(iv.start));
      max_t_ms_ = std::max(max_t_ms_, UnixMs(iv.end) - 1);
    }
  };
  if (max_t_ms_ < min_t_ms_) {
    for (const KubeState& k : kube_) {
      for (const KubePod& p : k.pods) {
        if (!p.resources.empty()) widen(p.active);
      }
    }
  }
  if (max_t_ms_ < min_t_ms_ && options_.window) {
    for (const KubeState& k : kube_) {
      std::set<std::string> dra_nodes;
      for (const KubeDraDevice& d : k.dra_devices) dra_nodes.insert(d.node);
      for (const KubeNode& n : k.nodes) {
        if (n.capacity.empty() && !dra_nodes.contains(n.name)) continue;
        widen(ClipIntervals(n.present, *options_.window));
      }
    }
  }
  // Without a window the span is the default one: a thin group of samples far from the rest is
  // left out of it, and said (stray_samples.h).
  int64_t stray_cap_ms = INT64_MAX;  // presence past the rest's end counts up to here
  if (!options_.window && max_t_ms_ >= min_t_ms_) {
    const StrayEdges stray = FindStrayEdges(sample_hours_);
    const auto say = [&](const StrayEdge& e, bool after) {
      diag_.Warn(StrCat(e.count, e.count == 1 ? " sample" : " samples", " from ",
                        FormatRfc3339(InstantFromUnixMs(e.first_ms)), " to ",
                        FormatRfc3339(InstantFromUnixMs(e.last_ms)),
                        e.count == 1 ? " lies " : " lie ", FormatDuration(Duration(e.gap_ms)),
                        after ? " after" : " before", " the rest of the data (",
                        FormatRfc3339(InstantFromUnixMs(e.rest_min_ms)), " to ",
                        FormatRfc3339(InstantFromUnixMs(e.rest_max_ms)),
                        "): left out of the default window (a clock or a stray line? give "
                        "--window to include them)"));
    };
    if (stray.tail) {
      say(*stray.tail, true);
      max_t_ms_ = stray.tail->rest_max_ms;
      stray_cap_ms = max_t_ms_ + stray.tail->gap_ms / 2;
    }
    if (stray.head) {
      say(*stray.head, false);
      min_t_ms_ = stray.head->rest_min_ms;
    }
  }
  if (max_t_ms_ >= min_t_ms_) {
    Instant end = InstantFromUnixMs(max_t_ms_ + 1);
    auto extend = [&](const PresenceSeries& s) {
      for (const Interval& iv : PresentIntervals(s, presence)) {
        if (UnixMs(iv.start) > max_t_ms_) break;  // a stray sample's presence
        end = std::max(end, std::min(iv.end, InstantFromUnixMs(stray_cap_ms)));
      }
    };
    for (const auto& [k, n] : ksm_.data().nodes) extend(n.seen);
    for (const auto& [k, d] : dcgm_.data().devices) extend(d.seen);
    for (const auto& [k, g] : agent_.data().gpus) extend(g.seen);
    for (const auto& [k, p] : ksm_.data().pods) {
      for (const auto& [ph, s] : p.phases) extend(s);
    }
    out.span = Window{InstantFromUnixMs(min_t_ms_), end};
  } else {
    diag_.Warn(std::string(kNoClusterData));
  }
  out.window = options_.window.value_or(out.span);
  // A stretch without any sample inside the data costs nothing (no evidence): said, with where.
  for (const SampleGap& g :
       FindSampleGaps(sample_hours_, UnixMs(out.window.start), UnixMs(out.window.end))) {
    diag_.Warn(StrCat("no sample at all from ", FormatRfc3339(InstantFromUnixMs(g.start_ms)),
                      " to ", FormatRfc3339(InstantFromUnixMs(g.end_ms)), " (",
                      FormatDuration(Duration(g.end_ms - g.start_ms)),
                      ") inside the input's data: nothing is costed there, as nothing shows who "
                      "held the GPUs (a scrape outage?)"));
  }

  Assembly a{options_,
             presence,
             out.window,
             ksm_.data(),
             dcgm_.data(),
             agent_.data(),
             hami_.data(),
             diag_,
             neuron_.data(),
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {},
             {}};
  a.device_classes = &ksm_.device_classes();
  MergeKubeStates(kube_, a);
  BuildPodTimelines(a);
  BuildNodesAndUnits(a);
  BuildHoldersAndHoldings(a);
  BuildUsage(a);
  BuildAgentUsage(a);
  BuildHamiUsage(a);
  BuildNeuronUsage(a);
  out.device_jobs = BuildDeviceJobs(a);
  out.agent_jobs = std::move(a.agent.slurm_jobs);

  for (GpuUnit& u : a.inventory.units) {
    if (u.present.empty()) continue;
    u.present = ClipIntervals(u.present, out.window);
    // Empty would read as "whenever the node is present"; a unit seen only outside the window
    // is present for no time in it.
    if (u.present.empty()) u.present.push_back(Interval{out.window.start, out.window.start});
  }
  std::erase_if(a.inventory.holdings,
                [](const Holding& h) { return h.interval.end <= h.interval.start; });
  if (sparse.longest > Duration(0)) {
    diag_.Warn(StrCat("series are sampled as sparsely as every ", FormatDuration(sparse.longest),
                      ", longer than the staleness (", FormatDuration(options_.staleness),
                      "): each of their samples stands for up to 1.5 of its series' intervals (",
                      FormatDuration(SampleHoldLimit(sparse.longest, options_.staleness)),
                      "), not the staleness (docs/engine.md \"Sampling intervals\")"));
  }
  out.inventory = std::move(a.inventory);
  out.usage = std::move(a.usage);
  out.warnings = diag_.warnings();
  return out;
}

}  // namespace gpucost
