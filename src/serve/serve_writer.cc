#include "serve/serve_writer.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <set>

#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger_draws.h"
#include "ledger/ledger_sink.h"
#include "pipeline/report_pipeline.h"

namespace gpucost::serve {
namespace {

Instant AlignDown(Instant t, Duration step) { return GridFloor(t, step); }

bool NoData(const Status& s) {
  const std::string_view m = s.message();
  return m.find("no timestamped samples") != std::string_view::npos ||
         m.find("no samples") != std::string_view::npos ||
         m.find("covers no time") != std::string_view::npos;
}

// The clusters an inventory's nodes belong to, sorted.
std::vector<std::string> ClustersOf(const Inventory& inventory) {
  std::set<std::string> names;
  for (const Node& n : inventory.nodes) names.insert(n.cluster);
  return {names.begin(), names.end()};
}

}  // namespace

HoleScan ScanHoles(Instant start, Duration step, const std::vector<bool>& data,
                   std::optional<Instant> pending, std::optional<Instant> unwatched_from) {
  HoleScan out;
  out.pending = pending;
  for (size_t i = 0; i < data.size(); ++i) {
    const Instant s = start + static_cast<int64_t>(i) * step;
    if (!data[i]) {
      if (!out.keep.empty() && out.keep.back().window.end == s) {
        out.keep.back().window.end = s + step;
      } else {
        out.keep.push_back({{s, s + step}, false});
      }
      if (!out.pending && unwatched_from && s >= *unwatched_from) out.pending = s;
    } else if (out.pending && s >= *out.pending) {
      if (s > *out.pending) out.carry.push_back({*out.pending, s});
      out.pending.reset();
    }
  }
  return out;
}

std::vector<std::string> UnwrittenClusters(const std::vector<ledger::ScopeState>& scopes,
                                           Instant now) {
  std::set<std::string> out;
  for (const ledger::ScopeState& scope : scopes) {
    if (scope.writer.empty() || scope.lease_until <= now) out.insert(scope.cluster);
  }
  return {out.begin(), out.end()};
}

std::string WriterName() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  char tag[9];
  std::snprintf(tag, sizeof(tag), "%08x", static_cast<unsigned>(random()));
  return StrCat(host[0] != '\0' ? host : "serve", ":", getpid(), ":", tag);
}

// A serve that was killed and started again on the same machine, or in the same container (where
// the new process may have the old one's pid).
bool GoneFromThisHost(const std::string& name) {
  const size_t tag = name.rfind(':');
  const size_t pid_at =
      tag == std::string::npos || tag == 0 ? std::string::npos : name.rfind(':', tag - 1);
  if (pid_at == std::string::npos) return false;
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || name.substr(0, pid_at) != host) return false;
  const std::string pid_text = name.substr(pid_at + 1, tag - pid_at - 1);
  char* end = nullptr;
  const long pid = std::strtol(pid_text.c_str(), &end, 10);
  if (pid_text.empty() || *end != '\0' || pid <= 0) return false;
  if (pid == getpid()) return true;
  return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

ServeWriter::ServeWriter(const ServeOptions& options, ledger::Ledger& ledger)
    : s_(options), ledger_(ledger), source_(options.source) {
  source_.ledger.clear();
}

// The source's data for `w`, noting what the Kubernetes API refused (kube_kinds()).
Result<LoadedInput> ServeWriter::Load(Window w) {
  Result<LoadedInput> loaded = LoadSource(w);
  if (!loaded.ok() || !source_.kube.wanted()) return loaded;
  if (!cycle_kube_kinds_) cycle_kube_kinds_.emplace();
  for (const KubeKindAccess& kind : loaded->kube_kinds) {
    auto seen = std::find_if(cycle_kube_kinds_->begin(), cycle_kube_kinds_->end(),
                             [&](const KubeKindAccess& k) { return k.resource == kind.resource; });
    if (seen == cycle_kube_kinds_->end()) {
      cycle_kube_kinds_->push_back(kind);
    } else if (seen->forbidden.empty()) {
      seen->forbidden = kind.forbidden;
    }
  }
  return loaded;
}

Result<LoadedInput> ServeWriter::LoadSource(Window w) {
  if (!s_.scrape) return LoadInput(source_, w, s_.step);
  GPUCOST_ASSIGN_OR_RETURN(Duration staleness, ParseDuration(source_.staleness));
  InputOptions in = source_;
  const auto lock = s_.scrape->ReadLock();
  // serve scrapes at its own interval, well within the staleness: the spool is read back
  // only that far (not SampleLookback's half hour).
  GPUCOST_ASSIGN_OR_RETURN(in.inputs, s_.scrape->Files(w, staleness));
  if (in.inputs.empty()) return Status::InvalidArgument("no samples in the scrape spool yet");
  Result<LoadedInput> loaded = LoadInput(in, w, s_.step, nullptr, &parsed_);
  // The next cycle starts `grace` before this one's end and reads `staleness` further back:
  // each spool file is parsed once, then replayed from memory by the cycles that read it again.
  Result<std::vector<std::string>> again = s_.scrape->Files({w.end - s_.grace, w.end}, staleness);
  parsed_.Retain(again.ok() ? *again : std::vector<std::string>());
  return loaded;
}

// One chunk [start, end): attribute and write. `ledger_failed` tells a failed write (disk
// full, permissions) from a failed source.
//
// A step without data (no record from the run, no sample in it) keeps what the ledger holds for
// it: the source may no longer have what that came from. A run of such steps from where serve
// stopped watching (unwatched_from_: a restart, a failed source or ledger) that data follows
// again is a hole. When serve is the scraper (--scrape), the hole is its own downtime; a file or
// a Prometheus that has nothing before the hole either (the steps re-read before it) lost the
// time, as a store's retention loses it. Once closed, each step of such a hole that holds nothing
// gets the holdings of the step before, unmeasured (docs/serve.md, "Gaps"). A hole in a file or a
// Prometheus with data before it is a gap the source recorded: warned and left empty, as
// `report` leaves it.
Status ServeWriter::Attribute(Window w, Instant now, bool& ledger_failed) {
  ledger_failed = false;
  const size_t steps = static_cast<size_t>((w.end - w.start + s_.step - Duration(1)) / s_.step);
  std::vector<bool> data(steps, false);
  Result<LoadedInput> input = Load(w);
  if (!input.ok() && !NoData(input.status())) return input.status();
  HoleScan scan;
  if (input.ok()) {
    ReportSettings settings;
    settings.step = s_.step;
    settings.accumulate = true;
    GPUCOST_ASSIGN_OR_RETURN(settings.by, ParseDimensions("cluster"));
    ApplyInput(*input, settings);
    // A cluster that appears in the source is written (and its lease taken) from here on.
    for (std::string& c : ClustersOf(input->timeline.inventory)) {
      if (std::find(clusters_.begin(), clusters_.end(), c) == clusters_.end()) {
        LogInfo(StrCat("gpucost serve: the source has a new cluster, ", c, ", written from ",
                       FormatRfc3339(w.start)));
        clusters_.insert(std::upper_bound(clusters_.begin(), clusters_.end(), c), std::move(c));
      }
    }
    settings.prior_draws = FindDraws(input->timeline.inventory, draws_);
    ledger::LedgerSink sink(ledger_, input->timeline.inventory, settings.window, settings.step);
    GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(input->timeline, s_.price, settings, &sink));
    draws_ = KeyDraws(input->timeline.inventory, run.summary.open_draws);
    data = sink.StepsWithRecords();
    data.resize(steps, false);
    for (size_t i = 0; i < steps; ++i) {
      const int64_t at = UnixMs(w.start + static_cast<int64_t>(i) * s_.step);
      data[i] = data[i] || input->timeline.sampled.Any(at, at + StepMs());
    }
    scan = ScanHoles(w.start, s_.step, data, hole_, unwatched_from_);
    ledger::WriteGaps keep{scan.keep, 0};
    const Status written = sink.Commit(&keep, Scope(now));
    ledger_failed = !written.ok();
    if (!written.ok()) return written;
  } else {
    scan = ScanHoles(w.start, s_.step, data, hole_, unwatched_from_);
  }
  // Whether the source has nothing in this chunk's steps before `at` either (at least one).
  const auto lost_before = [&](Instant at) {
    const auto i = static_cast<size_t>((at - w.start) / s_.step);
    return i > 0 && i <= data.size() &&
           std::none_of(data.begin(), data.begin() + i, std::identity());
  };
  for (const Window& hole : scan.carry) {
    const bool lost = hole_ && hole.start == *hole_ ? hole_lost_ : lost_before(hole.start);
    if (!s_.scrape && !lost) {
      // A file or a Prometheus is the record: a gap it recorded, `report` on it does not cost
      // either.
      LogWarn(StrCat("gpucost serve: the source has no data from ", FormatRfc3339(hole.start),
                     " to ", FormatRfc3339(hole.end),
                     ", which serve did not watch, and has data before it: nothing is costed "
                     "there, as report on the same source costs nothing there"));
      continue;
    }
    ledger::WriteGaps carry{{{hole, true}}, 0};
    const Status written = ledger_.Write(Inventory{}, hole, s_.step, {}, &carry, Scope(now));
    ledger_failed = !written.ok();
    if (!written.ok()) return written;
    LogWarn(StrCat("gpucost serve: the source has no data from ", FormatRfc3339(hole.start), " to ",
                   FormatRfc3339(hole.end), ", which serve did not watch: ", carry.carried_steps,
                   " steps were given the holdings of the step before, unmeasured"));
    counts_.gap_steps += carry.carried_steps;
  }
  if (scan.pending != hole_) hole_lost_ = scan.pending && lost_before(*scan.pending);
  hole_ = scan.pending;
  return Status::Ok();
}

int64_t ServeWriter::StepMs() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(s_.step).count();
}

ledger::WriteScope ServeWriter::Scope(Instant now) const {
  ledger::WriteScope scope;
  scope.clusters = clusters_;
  scope.writer = name_;
  scope.lease = s_.writer_lease;
  scope.now = now;
  return scope;
}

// At the first cycle, the clusters serve writes: those its source has over the last interval,
// or where it starts (--from); --cluster when it has none yet (docs/serve.md, "Many
// clusters"). Clusters that appear later are added as they do.
Status ServeWriter::LearnClusters(Instant end) {
  if (!clusters_.empty()) return Status::Ok();
  std::vector<Window> probes = {{end - s_.interval, end}};
  if (s_.from && *s_.from < end)
    probes.push_back({*s_.from, std::min(end, *s_.from + s_.max_chunk)});
  for (const Window& w : probes) {
    Result<LoadedInput> probe = Load(w);
    if (!probe.ok() && !NoData(probe.status())) return probe.status();
    if (probe.ok()) clusters_ = ClustersOf(probe->timeline.inventory);
    if (!clusters_.empty()) break;
  }
  if (clusters_.empty()) clusters_ = {s_.source.cluster};
  LogInfo(StrCat("gpucost serve: writing cluster", clusters_.size() == 1 ? " " : "s ",
                 Join(clusters_, ", "), " of ", ledger_.path(), " as ", name_));
  return Status::Ok();
}

// Takes or renews the writer lease of serve's clusters: true while it holds it. A serve whose
// clusters another serve writes is its standby: it answers from the ledger, writes nothing, and
// takes over once the other stops renewing.
bool ServeWriter::HoldLease(Instant now) {
  Result<std::optional<ledger::ScopeState>> held = ledger_.TakeLease(Scope(now));
  if (held.ok() && *held && GoneFromThisHost((*held)->writer)) {
    // Its own predecessor, killed and restarted: no need to wait for its lease to run out.
    ledger::WriteScope scope = Scope(now);
    scope.replaces = (*held)->writer;
    LogInfo(StrCat("gpucost serve: taking over from ", scope.replaces,
                   ", which no longer runs on this host"));
    held = ledger_.TakeLease(scope);
  }
  if (!held.ok()) {
    // The ledger could not keep the lease (a full disk, a damaged file): a failed write too.
    LogError(StrCat("gpucost serve: ", held.status().ToString()));
    ++counts_.ledger_write_errors;
    if (held.status().code() == StatusCode::kDataLoss && damage_.ok()) damage_ = held.status();
    return false;
  }
  if (*held) {
    if (writing_ || !standing_by_) {
      LogInfo(StrCat("gpucost serve: standing by: cluster ", (*held)->cluster, " is written by ",
                     (*held)->writer, " until ", FormatRfc3339((*held)->lease_until),
                     "; this serve takes over if it stops"));
    }
    GoStandby();
    return false;
  }
  if (!writing_) {
    if (standing_by_) {
      LogInfo(StrCat("gpucost serve: took over writing ", Join(clusters_, ", ")));
    }
    writing_ = true;
    standing_by_ = false;
    resumed_ = false;  // where the writer before stopped
  }
  return true;
}

void ServeWriter::GoStandby() {
  writing_ = false;
  standing_by_ = true;
  resumed_ = false;
  hole_.reset();
  hole_lost_ = false;
  unwatched_from_.reset();
}

// Once writing: resumes each cluster where its writer before stopped (a restart, a takeover),
// and what came after was not watched.
Status ServeWriter::Resume() {
  if (resumed_) return Status::Ok();
  GPUCOST_ASSIGN_OR_RETURN(std::vector<ledger::ScopeState> scopes, ledger_.Scopes());
  std::optional<Instant> through;
  fresh_ = false;
  for (const std::string& cluster : clusters_) {
    std::optional<Instant> point;
    for (const ledger::ScopeState& scope : scopes) {
      if (scope.cluster != cluster) continue;
      point = scope.attributed_through;
      if (scope.newest_step && (!point || scope.newest_step->end > *point)) {
        point = scope.newest_step->end;
      }
    }
    if (!point) {
      fresh_ = true;  // new to the ledger: it starts at --from, or one interval ago
      continue;
    }
    through = through ? std::min(*through, *point) : point;
  }
  processed_ = through;
  unwatched_from_ = through;
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<int64_t> grid, ledger_.GridOffset(s_.step));
  grid_offset_ = grid.value_or(0);
  // The draws of the pods running where the run before stopped: they keep their units. A
  // cluster whose ledger goes on past where its serve stopped (a `ledger write` back-filled it)
  // takes them from the ledger's step before the resume point instead.
  std::vector<std::string> kept;
  std::vector<std::string> written_on;
  for (const ledger::ScopeState& scope : scopes) {
    if (std::find(clusters_.begin(), clusters_.end(), scope.cluster) == clusters_.end()) continue;
    (through && scope.attributed_through == through ? kept : written_on).push_back(scope.cluster);
  }
  Result<std::vector<KeyedDraw>> draws = ledger_.OpenDraws(kept);
  if (draws.ok() && through && !written_on.empty()) {
    Result<std::vector<KeyedDraw>> held =
        ledger::DrawsHeldBefore(ledger_, *through, s_.step, written_on);
    if (held.ok()) {
      draws->insert(draws->end(), held->begin(), held->end());
    } else {
      draws = held.status();
    }
  }
  if (draws.ok()) {
    draws_ = std::move(*draws);
  } else {
    draws_.clear();
    LogError(StrCat("gpucost serve: ", draws.status().ToString(),
                    " (the pods running at the restart draw their units anew)"));
  }
  resumed_ = true;
  return Status::Ok();
}

ServeWriter::Outcome ServeWriter::Cycle(Instant now, const std::function<bool()>& stopping) {
  cycle_kube_kinds_.reset();
  const Outcome outcome = RunCycle(now, stopping);
  // A cycle that read nothing (its reads failed) tells nothing new: the last one that read the
  // API stands. A standby reads nothing, and says nothing of the API.
  if (standing_by_) {
    kube_kinds_.clear();
  } else if (cycle_kube_kinds_) {
    kube_kinds_ = std::move(*cycle_kube_kinds_);
    std::sort(
        kube_kinds_.begin(), kube_kinds_.end(),
        [](const KubeKindAccess& a, const KubeKindAccess& b) { return a.resource < b.resource; });
  }
  return outcome;
}

ServeWriter::Outcome ServeWriter::RunCycle(Instant now, const std::function<bool()>& stopping) {
  Status ready = LearnClusters(AlignDown(now - s_.lag, s_.step));
  // What failed, for the log: the source (learning its clusters), else the ledger (resuming).
  const char* failing = ready.ok() ? "reading the ledger" : "reading the source";
  if (ready.ok() && !HoldLease(now)) return {standing_by_, false};
  if (ready.ok()) ready = Resume();
  if (!ready.ok()) {
    outages_.Failed(failing, ready.ToString(), now);
    ++counts_.source_errors;
    return {false, false};
  }
  outages_.Worked("reading the ledger", now);
  // On the ledger's grid of steps (docs/ledger.md, "One grid of steps"): the epoch's for a new
  // ledger, else that of the steps written before, which a write off it would be refused.
  const Instant end = GridFloor(now - s_.lag, s_.step, grid_offset_);
  Instant start = end - s_.interval;
  if (processed_) start = *processed_ - s_.grace;
  if (!processed_ || fresh_) {
    const Instant first = s_.from ? *s_.from : end - s_.interval;
    start = processed_ ? std::min(start, first) : first;
  }
  if (s_.from && start < *s_.from) start = *s_.from;
  start = GridFloor(start, s_.step, grid_offset_);
  bool caught_up = true;
  // A long catch-up (a new ledger from --from, a restart after days) says how far it is.
  auto reported = std::chrono::steady_clock::now();
  while (start < end) {
    if (std::chrono::steady_clock::now() - reported >= std::chrono::seconds(30)) {
      reported = std::chrono::steady_clock::now();
      LogInfo(StrCat("gpucost serve: catching up: attributed through ", FormatRfc3339(start), ", ",
                     FormatDuration(end - start), " to go"));
    }
    const Instant chunk_end = std::min(end, start + s_.max_chunk);
    bool ledger_failed = false;
    const Status st = Attribute({start, chunk_end}, now, ledger_failed);
    if (st.code() == StatusCode::kFailedPrecondition) {
      // Another serve took the lease over (this one stalled past it): it writes from here.
      LogInfo(StrCat("gpucost serve: standing by: ", st.message()));
      GoStandby();
      return {true, false};
    }
    if (!st.ok()) {
      // Nothing of the chunk was kept (one transaction); the next cycle attributes it again.
      // A source that stays broken (a missing --input file) is logged when it starts failing,
      // hourly, and when it works again, not every cycle (OutageLog).
      outages_.Failed(ledger_failed ? "writing the ledger" : "reading the source",
                      StrCat(ledger_failed ? "writing the ledger: " : "", st.ToString()), now,
                      StrCat("nothing attributed from ", FormatRfc3339(start)));
      ++(ledger_failed ? counts_.ledger_write_errors : counts_.source_errors);
      if (st.code() == StatusCode::kDataLoss && damage_.ok()) damage_ = st;
      if (!unwatched_from_ && processed_) unwatched_from_ = processed_;
      caught_up = false;
      break;
    }
    outages_.Worked("reading the source", now);
    outages_.Worked("writing the ledger", now);
    processed_ = chunk_end;
    fresh_ = false;
    // A restart resumes here; while a hole is open, at its start, to find it again.
    const Status marked = ledger_.SetAttributedThrough(
        Scope(now), hole_ ? std::min(*hole_, chunk_end) : chunk_end, draws_);
    if (!marked.ok()) LogError(StrCat("gpucost serve: ", marked.ToString()));
    start = chunk_end;
    if (stopping()) return {false, false};
  }
  if (caught_up && !hole_) unwatched_from_.reset();
  // Roll up what no later cycle rewrites: everything before the next cycle's start, and before
  // the next cycle of every other live writer of the ledger (the serves of other clusters; one
  // whose lease ran out is not waited for), so that their writes do not roll up again what
  // this one rolled.
  if (processed_) {
    Instant before = *processed_ - s_.grace;
    Result<std::vector<ledger::ScopeState>> scopes = ledger_.Scopes();
    if (scopes.ok()) {
      for (const ledger::ScopeState& other : *scopes) {
        if (other.writer.empty() || other.writer == name_ || other.lease_until <= now ||
            !other.attributed_through) {
          continue;
        }
        before = std::min(before, *other.attributed_through - s_.grace);
      }
    }
    Result<int64_t> sealed = ledger_.Seal(before);
    if (!sealed.ok()) LogError(StrCat("gpucost serve: ", sealed.status().ToString()));
  }
  if (s_.retention.count() > 0) {
    Result<int64_t> removed = ledger_.DeleteBefore(now - s_.retention);
    if (!removed.ok()) LogError(StrCat("gpucost serve: ", removed.status().ToString()));
  }
  return {caught_up, true};
}

void ServeWriter::Release(Instant now) {
  if (!writing_ || clusters_.empty()) return;
  const Status released = ledger_.ReleaseLease(Scope(now));
  if (!released.ok()) LogError(StrCat("gpucost serve: ", released.ToString()));
}

}  // namespace gpucost::serve
