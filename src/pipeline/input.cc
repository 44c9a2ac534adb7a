#include "pipeline/input.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <utility>

#include "core/log.h"
#include "core/progress.h"
#include "core/strings.h"
#include "inventory/input_metrics.h"
#include "inventory/timeline_loader.h"
#include "ledger/ledger.h"
#include "model/usage.h"
#include "pipeline/input_diagnosis.h"
#include "promsource/http_transport.h"
#include "promsource/prometheus_source.h"
#include "slurm/account_teams.h"
#include "slurm/sacct_runner.h"
#include "slurm/slurm_timeline.h"

namespace gpucost {
namespace {

// Hands every sample to the inventory builder and to the tap: one parse, two readers.
class TapTee final : public ExpositionHandler {
 public:
  TapTee(InventoryBuilder& builder, SeriesTap& tap) : builder_(builder), tap_(tap) {}
  void OnSample(const SampleView& sample) override {
    builder_.OnSample(sample);
    tap_.OnSample(sample);
  }
  void OnMetadata(const MetadataView& metadata) override {
    builder_.OnMetadata(metadata);
    tap_.OnMetadata(metadata);
  }
  bool OnError(const ParseIssue& issue) override { return builder_.OnError(issue); }

 private:
  InventoryBuilder& builder_;
  SeriesTap& tap_;
};

// A file's bytes as they are read, before any decompression, counted on a progress line: the
// line's total is the files' sizes on disk.
class CountedFileSource final : public ByteSource {
 public:
  CountedFileSource(int fd, bool owned, std::string name, ProgressLine& line)
      : fd_(fd), owned_(owned), name_(std::move(name)), line_(line) {}
  ~CountedFileSource() override {
    if (owned_) ::close(fd_);
  }
  Result<size_t> Read(char* buf, size_t n) override {
    for (;;) {
      const ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        line_.Add(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) return Status::IoError(StrCat(name_, ": read: ", std::strerror(errno)));
    }
  }
  const std::string& name() const override { return name_; }

 private:
  int fd_;
  bool owned_;
  std::string name_;
  ProgressLine& line_;
};

Result<std::unique_ptr<ByteSource>> OpenCountedSource(const std::string& path, ProgressLine& line) {
  if (path == "-") {
    return MaybeDecompress(
        std::make_unique<CountedFileSource>(STDIN_FILENO, false, "<stdin>", line));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(StrCat(path, ": cannot open: ", std::strerror(errno)));
  return MaybeDecompress(std::make_unique<CountedFileSource>(fd, true, path, line));
}

// LoadTimelineFromFiles, with the tap (when given) reading the same parse and a progress line
// of the bytes read (when wanted).
Result<LoadedTimeline> LoadFiles(const std::vector<std::string>& paths,
                                 const TimelineOptions& topts, SeriesTap* tap, bool progress) {
  GPUCOST_ASSIGN_OR_RETURN(std::vector<std::string> files, ExpandInputPaths(paths));
  int64_t total = 0;
  for (const std::string& file : files) {
    std::error_code ec;
    if (file != "-") total += static_cast<int64_t>(std::filesystem::file_size(file, ec));
  }
  const SystemClock clock;
  ProgressLine line("gpucost", ProgressUnit::kBytes, total, clock, std::cerr, progress);
  InventoryBuilder builder(topts);
  std::optional<TapTee> tee;
  if (tap != nullptr) tee.emplace(builder, *tap);
  ExpositionHandler& handler = tee ? static_cast<ExpositionHandler&>(*tee) : builder;
  for (const std::string& file : files) {
    GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ByteSource> source, OpenCountedSource(file, line));
    builder.BeginSource(file);
    if (tap != nullptr) tap->BeginSource(file);
    ParseOptions po;
    po.source_name = file;
    po.remember_series = true;  // the readers find series by id
    auto stats = ParseExposition(*source, po, handler);
    if (!stats.ok()) return std::move(stats).status();
  }
  line.Finish();
  return builder.Build();
}

// LoadTimelineFromPrometheus, with the tap's metrics asked in the same requests.
Result<LoadedTimeline> LoadPrometheusWithTap(const promsource::PrometheusSourceOptions& popts,
                                             const TimelineOptions& topts, SeriesTap& tap,
                                             promsource::FetchStats* stats) {
  const Window range{topts.window->start - SampleLookback(topts.staleness),
                     topts.window->end + SampleLookahead(topts.staleness)};
  const std::vector<std::string> extra = tap.Metrics();
  std::vector<std::string_view> metrics(kInventoryMetricNames.begin(), kInventoryMetricNames.end());
  for (const std::string& m : extra) {
    if (std::find(metrics.begin(), metrics.end(), m) == metrics.end()) metrics.push_back(m);
  }
  promsource::PrometheusClient client(popts.url, popts.client);
  InventoryBuilder builder(topts);
  const std::string source = StrCat("prometheus:", client.display_url());
  builder.BeginSource(source);
  tap.BeginSource(source);
  TapTee tee(builder, tap);
  GPUCOST_RETURN_IF_ERROR(promsource::FetchRawSamples(client, popts.api, range, popts.chunk,
                                                      metrics, tee, stats, popts.progress,
                                                      popts.max_chunk, popts.first_span));
  return builder.Build();
}

Result<LoadedTimeline> LoadPrometheus(const InputOptions& flags, const TimelineOptions& topts,
                                      SeriesTap* tap) {
  promsource::PrometheusSourceOptions popts;
  popts.url = flags.prometheus;
  GPUCOST_ASSIGN_OR_RETURN(popts.chunk, ParseDuration(flags.prometheus_chunk));
  if (popts.chunk.count() <= 0) {
    return Status::InvalidArgument("--prometheus-chunk must be positive");
  }
  GPUCOST_ASSIGN_OR_RETURN(popts.max_chunk, ParseDuration(flags.prometheus_max_chunk));
  GPUCOST_ASSIGN_OR_RETURN(popts.api, promsource::ParsePrometheusApi(flags.prometheus_api));
  popts.progress = flags.prometheus_progress && flags.progress.wanted();
  if (flags.prometheus_span) popts.first_span = *flags.prometheus_span;
  popts.client.http.ca_file = flags.ca_file;
  popts.client.http.cert_file = flags.cert_file;
  popts.client.http.key_file = flags.key_file;
  popts.client.http.verify_tls = !flags.insecure_skip_verify;
  GPUCOST_ASSIGN_OR_RETURN(popts.client.headers,
                           ParseHeaderFlags(flags.prometheus_headers, "--prometheus-header"));
  if (flags.cert_file.empty() != flags.key_file.empty()) {
    return Status::InvalidArgument("--cert-file and --key-file go together");
  }
  GPUCOST_ASSIGN_OR_RETURN(
      popts.client.prepare_request,
      promsource::MakeAuthDecorator(flags.auth, std::make_shared<SystemClock>(),
                                    promsource::ProcessEnv()));
  LoadedTimeline timeline;
  promsource::FetchStats stats;
  if (tap == nullptr) {
    GPUCOST_ASSIGN_OR_RETURN(timeline,
                             promsource::LoadTimelineFromPrometheus(popts, topts, nullptr, &stats));
  } else {
    GPUCOST_ASSIGN_OR_RETURN(timeline, LoadPrometheusWithTap(popts, topts, *tap, &stats));
  }
  if (flags.prometheus_span && stats.next_span > Duration(0)) {
    *flags.prometheus_span = stats.next_span;
  }
  if (timeline.samples == 0 && !flags.prometheus_empty_ok) {
    return Status::InvalidArgument("Prometheus returned no samples for the window");
  }
  return timeline;
}

// Slurm's jobs over `window`: from a file, or from sacct run for the window.
Result<slurm::SlurmTimeline> LoadSlurm(const InputOptions& flags, std::optional<Window> window,
                                       Duration usage_sample_interval,
                                       std::string window_origin = "") {
  slurm::SlurmOptions sopts;
  sopts.cluster = flags.cluster;
  sopts.format.time_zone = flags.slurm_time_zone;
  sopts.default_gpus_per_node = flags.slurm_gpus_per_node;
  sopts.default_gpu_model = flags.slurm_gpu_model;
  sopts.usage_sample_interval = usage_sample_interval;
  if (!flags.slurm_billing_weights.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(sopts.billing, slurm::LoadBillingWeights(flags.slurm_billing_weights));
    sopts.billing->max_tres = sopts.billing->max_tres || flags.slurm_billing_max_tres;
  }
  if (!flags.slurm_account_teams.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(sopts.account_teams,
                             slurm::LoadAccountTeams(flags.slurm_account_teams));
    sopts.account_teams_source = flags.slurm_account_teams;
  }
  sopts.window = window;
  sopts.window_origin = std::move(window_origin);
  if (!flags.slurm) return slurm::LoadSacct(flags.slurm_sacct, sopts);
  slurm::SacctRunOptions run;
  run.binary = flags.slurm_sacct_bin;
  run.window = *sopts.window;
  run.time_zone = flags.slurm_time_zone;
  run.clusters = SplitList(flags.slurm_clusters);
  GPUCOST_ASSIGN_OR_RETURN(std::string text, slurm::RunSacct(run));
  sopts.format.fields = slurm::SacctFields();
  return slurm::LoadSacctText(text, sopts, "sacct");
}

}  // namespace

Result<std::vector<std::pair<std::string, std::string>>> ParseHeaderFlags(
    const std::vector<std::string>& values, std::string_view flag) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& h : values) {
    const size_t eq = h.find('=');
    if (eq == 0 || eq == std::string::npos) {
      return Status::InvalidArgument(StrCat(flag, " \"", h, "\": NAME=VALUE is expected"));
    }
    out.emplace_back(h.substr(0, eq), h.substr(eq + 1));
  }
  return out;
}

namespace {

// --ledger: the stored records of the window, and the units and holders they name.
Result<LoadedInput> LoadLedger(const InputOptions& flags, std::optional<Window> window,
                               LoadedInput out) {
  if (!flags.inputs.empty() || !flags.prometheus.empty() || !flags.slurm_sacct.empty() ||
      flags.slurm || flags.kube.any()) {
    return Status::InvalidArgument(
        "--ledger reads attributed records: give it alone, without --input, --prometheus, "
        "--slurm*, --kube or --kube-objects");
  }
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l,
                           ledger::Ledger::OpenExisting(flags.ledger));
  ledger::ReadOptions read;
  read.rollups = flags.ledger_rollups;
  read.accumulate = flags.ledger_bucket.count() == 0;
  read.bucket = flags.ledger_bucket;
  read.cache = flags.ledger_cache;
  read.clusters = flags.ledger_clusters;
  read.max_records = flags.ledger_max_records;
  GPUCOST_ASSIGN_OR_RETURN(ledger::LedgerWindow stored, l->Read(window, read));
  if (stored.records.empty() && stored.rolled.empty()) {
    return Status::InvalidArgument(StrCat(l->path(), ": no cost records in ",
                                          FormatRfc3339(stored.window.start), " to ",
                                          FormatRfc3339(stored.window.end)));
  }
  out.timeline.inventory = std::move(stored.inventory);
  out.timeline.window = stored.window;
  out.timeline.span = stored.window;
  out.timeline.samples = stored.records.size() + stored.rolled.size();
  out.step = stored.step;
  out.records = std::make_shared<const std::vector<CostRecord>>(std::move(stored.records));
  out.rolled = std::make_shared<const std::vector<RolledRecord>>(std::move(stored.rolled));
  return out;
}

}  // namespace

// A window the data covers only in part costs only that part; say so, with the covered span.
std::optional<InputWarning> BeyondDataWarning(Window window, Window span) {
  const Window covered = Intersect(window, span);
  if (covered == window) return std::nullopt;
  std::string message;
  if (covered.empty()) {
    message = StrCat("the window ", FormatRfc3339(window.start), " to ", FormatRfc3339(window.end),
                     " holds none of the input's data (", FormatRfc3339(span.start), " to ",
                     FormatRfc3339(span.end), "): nothing in it is costed");
  } else {
    message = StrCat("the window ", FormatRfc3339(window.start), " to ", FormatRfc3339(window.end),
                     " reaches beyond the input's data: only ", FormatRfc3339(covered.start),
                     " to ", FormatRfc3339(covered.end), " (", FormatDuration(covered.length()),
                     " of ", FormatDuration(window.length()), ") is costed");
  }
  return InputWarning{"", 0, std::move(message)};
}

void ApplyInput(const LoadedInput& input, ReportSettings& settings) {
  settings.staleness = input.staleness;
  settings.window = input.timeline.window;
  settings.progress = input.progress;
  if (input.records) {
    settings.step = input.step;
    settings.replay = input.records.get();
    settings.replay_rolled = input.rolled.get();
  }
}

Result<LoadedInput> LoadInput(const InputOptions& flags, std::optional<Window> window,
                              Duration step, SeriesTap* tap, ParsedFileCache* cache) {
  TimelineOptions topts;
  topts.cluster = flags.cluster;
  topts.team_labels = SplitList(flags.team_labels);
  topts.label_allowlist = SplitList(flags.label_allowlist);
  topts.window = window;
  // Telemetry of a GPU cluster is of this century: a stray timestamp outside it (a sample written
  // at 1, or in seconds where milliseconds were meant) is skipped with a warning.
  topts.plausible_times = kPlausibleSampleTimes;
  LoadedInput out;
  out.progress = flags.progress.wanted();
  GPUCOST_ASSIGN_OR_RETURN(out.staleness, ParseDuration(flags.staleness));
  topts.staleness = out.staleness;
  if (!flags.ledger.empty()) return LoadLedger(flags, window, std::move(out));

  GPUCOST_ASSIGN_OR_RETURN(
      KubeRead kube, ReadKube(flags.kube, flags.cluster, topts.label_allowlist, topts.team_labels));
  if (kube.state) topts.kube_states.push_back(std::move(*kube.state));
  out.kube_kinds = std::move(kube.optional_kinds);
  GPUCOST_ASSIGN_OR_RETURN(topts.untimestamped_at,
                           ParseUntimestampedAt(flags.untimestamped_at, flags.inputs));
  if (!flags.prometheus.empty() && !flags.inputs.empty()) {
    return Status::InvalidArgument("give either --input or --prometheus, not both");
  }
  if (!flags.prometheus.empty() && !window) {
    return Status::InvalidArgument("--prometheus needs --window");
  }
  const bool kubernetes = !flags.inputs.empty() || !flags.prometheus.empty() || flags.kube.any();
  const bool slurm = flags.slurm || !flags.slurm_sacct.empty();
  if (!kubernetes && !slurm) {
    return Status::InvalidArgument(
        "nothing to attribute: give --input, --prometheus, --kube or --kube-objects, and/or "
        "--slurm-sacct or "
        "--slurm");
  }
  if (flags.slurm && !flags.slurm_sacct.empty()) {
    return Status::InvalidArgument("give either --slurm or --slurm-sacct, not both");
  }
  if (flags.slurm && !kubernetes && !window) {
    return Status::InvalidArgument("--slurm needs --window (or --input to take the window from)");
  }
  LoadedTimeline& timeline = out.timeline;
  if (!flags.inputs.empty()) {
    if (cache != nullptr && tap == nullptr) {
      // serve's spool: the files a cycle before parsed are replayed (no progress line there).
      GPUCOST_ASSIGN_OR_RETURN(timeline, LoadTimelineFromFiles(flags.inputs, topts, cache));
    } else {
      GPUCOST_ASSIGN_OR_RETURN(timeline,
                               LoadFiles(flags.inputs, topts, tap, flags.progress.wanted()));
    }
    if (timeline.samples == 0 || timeline.window.empty()) return NoTimeInFiles(timeline);
    if (!window && step.count() > 0) {
      // The data's own span, widened to whole steps on the epoch's grid (docs/report.md,
      // "Window"): samples stamped a few seconds past the minute give the steps a ledger, a month
      // or a day starts on, so every command and bucket splits the data at the same instants.
      // The widening holds no sample, so it costs nothing.
      timeline.window = {GridFloor(timeline.window.start, step),
                         GridCeil(timeline.window.end, step)};
      timeline.window_from_data = true;
    }
  }
  if (flags.inputs.empty() && flags.prometheus.empty() && flags.kube.any()) {
    // The API alone: allocation without usage (every step unmeasured) unless Slurm adds some.
    InventoryBuilder builder(topts);
    GPUCOST_ASSIGN_OR_RETURN(timeline, builder.Build());
  }
  if (!flags.prometheus.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(timeline, LoadPrometheus(flags, topts, tap));
  }
  // Only sampled sources time their data (the API alone gives pods' lifetimes, not a span).
  const bool sampled = !flags.inputs.empty() || !flags.prometheus.empty();
  if (window && sampled && flags.warn_beyond_data) {
    if (auto w = BeyondDataWarning(*window, timeline.span)) timeline.warnings.push_back(*w);
  }
  if (slurm) {
    // With Kubernetes input too, both timelines are attributed over the same window.
    GPUCOST_ASSIGN_OR_RETURN(
        slurm::SlurmTimeline piece,
        LoadSlurm(flags, kubernetes ? std::optional<Window>(timeline.window) : window,
                  std::min(step, out.staleness),
                  kubernetes && !window ? "the Kubernetes input's window" : ""));
    if (!kubernetes) {
      timeline = slurm::ToLoadedTimeline(std::move(piece));
    } else {
      slurm::MergeSlurmTimeline(timeline, std::move(piece), flags.cluster);
    }
  }
  if (timeline.window.empty()) return Status::InvalidArgument("the input covers no time");
  return out;
}

void PrintWarnings(std::span<const InputWarning> loading, const AttributionSummary& summary,
                   int max) {
  int printed = 0;
  const size_t total = loading.size() + summary.warnings.size();
  for (const InputWarning& w : loading) {
    if (printed++ < max) LogWarn(w.ToString());
  }
  for (const std::string& w : summary.warnings) {
    if (printed++ < max) LogWarn(w);
  }
  if (total > static_cast<size_t>(max)) {
    LogWarn(StrCat(total - static_cast<size_t>(max), " more warnings (raise --max-warnings)"));
  }
}

}  // namespace gpucost
