// `gpucost ledger`: the durable cost ledger (docs/ledger.md). `write` attributes any input over a
// window and stores the records (again for the same window replaces them); `info` says what a
// ledger holds. Every command that reads inputs also reads a ledger with --ledger FILE.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "attribution/inventory_union.h"
#include "cli/commands.h"
#include "cli/format_flag.h"
#include "cli/input_flags.h"
#include "cli/price_flags.h"
#include "cli/segment_flags.h"
#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/ledger_draws.h"
#include "ledger/ledger_sink.h"
#include "ledger/sql_db.h"
#include "pipeline/report_pipeline.h"
#include "pricing/price_fn.h"

namespace gpucost::cli {
namespace {

struct LedgerWriteFlags {
  std::string path;
  InputFlags input;
  PriceOptions price;
  std::string window;
  std::string step = "60s";
  SegmentFlags segments;
};

struct LedgerInfoFlags {
  std::string path;
  std::string format = "text";
};

std::string SpanText(const std::optional<Window>& span) {
  return span ? StrCat(FormatRfc3339(span->start), " to ", FormatRfc3339(span->end)) : "nothing";
}

// The records of a window attributed in segments, written to the ledger a segment at a time
// (each segment one transaction, as serve writes its pieces).
class SegmentWriter final : public CostSink {
 public:
  SegmentWriter(ledger::Ledger& l, const InventoryUnion& units, Window window, Duration step)
      : ledger_(l), units_(units), window_(window), step_(step) {}
  void Consume(std::span<const CostRecord> records) override {
    pending_.insert(pending_.end(), records.begin(), records.end());
  }
  Status Commit(Window segment) {
    const int64_t first = (segment.start - window_.start) / step_;
    for (CostRecord& r : pending_) r.step -= first;
    GPUCOST_RETURN_IF_ERROR(ledger_.Write(units_.inventory(), segment, step_, pending_));
    written_ += pending_.size();
    pending_.clear();
    return Status::Ok();
  }
  size_t written() const { return written_; }

 private:
  ledger::Ledger& ledger_;
  const InventoryUnion& units_;
  Window window_;
  Duration step_;
  std::vector<CostRecord> pending_;
  size_t written_ = 0;
};

// Writes what was attributed, rolls it up and says so.
Status Finish(ledger::Ledger& l, const ReportSettings& settings, size_t written) {
  // A written window is final: roll up its whole hours and days (a later write into them rolls
  // them again).
  GPUCOST_ASSIGN_OR_RETURN(const int64_t sealed, l.Seal(settings.window.end));
  GPUCOST_ASSIGN_OR_RETURN(ledger::LedgerInfo info, l.Info());
  std::cout << fmt::format(
      "wrote {} cost records ({} to {}, {} s steps) to {}; it holds {} over {}; rolled up {} "
      "hours{}\n",
      written, FormatRfc3339(settings.window.start), FormatRfc3339(settings.window.end),
      std::chrono::duration_cast<std::chrono::seconds>(settings.step).count(), l.path(),
      info.records, SpanText(info.span), sealed,
      // Other writers of the ledger (other clusters') held it this long: worth saying.
      l.lock_wait() >= std::chrono::milliseconds(100)
          ? fmt::format("; waited {:.1f} s for other writers",
                        std::chrono::duration<double>(l.lock_wait()).count())
          : "");
  return Status::Ok();
}

// The clusters of `inventory`'s nodes, sorted, each once.
std::vector<std::string> NodeClusters(const Inventory& inventory) {
  std::set<std::string> out;
  for (const Node& n : inventory.nodes) out.insert(n.cluster);
  return {out.begin(), out.end()};
}

// A write carries the pool draws, as serve's cycles and a segmented run do: a pod without a device
// assignment that runs across the start of this write keeps the units it held in the ledger's
// step before it (docs/ledger.md, "Idempotent writes"), so writing day after day, or a day again,
// gives the effective money of one write of all the days.
Result<std::vector<KeyedDraw>> DrawsAtStart(ledger::Ledger& l, Instant start, Duration step) {
  return ledger::DrawsHeldBefore(l, start, step, {});
}

// Where the written window meets the ledger's steps on either side, a pod on other units than
// the step beside it holds was drawn anew there (the other side written after this one, or an
// earlier step missing): its effective money is not one attribution's. Said with the pods.
void SayMovedAcross(ledger::Ledger& l, const std::vector<std::string>& clusters, Window window,
                    Duration step) {
  for (const Instant t : {window.start, window.end}) {
    Result<std::vector<std::string>> moved = ledger::MovedAcross(l, t, step, clusters);
    if (!moved.ok()) {
      LogWarn(StrCat("the write is done, but its edge at ", FormatRfc3339(t),
                     " could not be checked: ", moved.status().ToString()));
      continue;
    }
    if (moved->empty()) continue;
    std::vector<std::string> names(moved->begin(),
                                   moved->begin() + std::min<size_t>(moved->size(), 5));
    if (moved->size() > names.size()) names.push_back(StrCat(moved->size() - 5, " more"));
    LogWarn(StrCat(moved->size(), moved->size() == 1 ? " pod holds" : " pods hold",
                   " other GPU units after ", FormatRfc3339(t), " than before it (",
                   Join(names, ", "),
                   "): the steps on either side were attributed apart, so effective money may "
                   "differ from one write of both; write the later window again (docs/ledger.md, "
                   "\"Writes carry the pool draws\")"));
  }
}

// The money in `window` as the ledger holds it, per cluster (held and idle) and per team of each
// cluster (held), keyed "cluster" and "cluster\tteam".
struct MoneyHeld {
  std::map<std::string, ledger::CostSum> clusters;
  std::map<std::string, ledger::CostSum> teams;
};
Result<MoneyHeld> ClusterMoney(ledger::Ledger& l, Window window) {
  MoneyHeld out;
  GPUCOST_ASSIGN_OR_RETURN(out.clusters, l.Costs(window, {}, ledger::CostGroup::kCluster));
  GPUCOST_ASSIGN_OR_RETURN(out.teams, l.Costs(window, {}, ledger::CostGroup::kClusterTeam));
  return out;
}

// A write replaces its clusters' records in the window: where that changes money the ledger held
// (a rewrite from other or shorter input, other prices, pods drawn onto other GPUs), it is said
// per cluster of the write and per team of those clusters whose money moved, with the amounts.
void SayChangedMoney(ledger::Ledger& l, const MoneyHeld& before,
                     const std::vector<std::string>& clusters, Window window) {
  // The write is committed: a failed read of what it holds now is said, not the write's failure.
  Result<MoneyHeld> read = ClusterMoney(l, window);
  if (!read.ok()) {
    LogWarn(StrCat("the write is done, but what it changed could not be read: ",
                   read.status().ToString()));
    return;
  }
  const MoneyHeld& after = *read;
  const auto usd = [](double v, double other) {
    return std::abs(v - other) < 0.01 ? fmt::format("${:.6f}", v) : fmt::format("${:.2f}", v);
  };
  // Money of hours none of which is priced is unknown, never $0; of hours some of which are
  // not, the priced part "+ unknown".
  const auto money = [&](const ledger::CostSum& sum, double v, double other) {
    if (sum.unpriced_gpu_hours > 0 && !(sum.priced_gpu_hours > 0)) return std::string("unknown");
    return StrCat(usd(v, other), sum.unpriced_gpu_hours > 0 ? " + unknown" : "");
  };
  const auto differ = [](double a, double b) {
    return std::abs(a - b) > 1e-9 * std::max(1.0, std::abs(b));
  };
  const auto written = [&](std::string_view key) {
    const std::string_view cluster = key.substr(0, key.find('\t'));
    return std::binary_search(clusters.begin(), clusters.end(), cluster);
  };
  const std::string when =
      StrCat(" from ", FormatRfc3339(window.start), " to ", FormatRfc3339(window.end));
  int said = 0;
  int more = 0;
  for (const bool teams : {false, true}) {
    const auto& was_by = teams ? before.teams : before.clusters;
    const auto& now_by = teams ? after.teams : after.clusters;
    std::set<std::string> keys;
    for (const auto& [key, sum] : was_by) keys.insert(key);
    for (const auto& [key, sum] : now_by) keys.insert(key);
    for (const std::string& key : keys) {
      if (!written(key)) continue;
      const auto was_it = was_by.find(key);
      const auto now_it = now_by.find(key);
      // A cluster or team new to the window is no change to money the ledger held.
      if (was_it == was_by.end()) continue;
      const ledger::CostSum& was = was_it->second;
      const ledger::CostSum now = now_it == now_by.end() ? ledger::CostSum{} : now_it->second;
      const bool moved = differ(now.usd, was.usd);
      const bool effective = differ(now.effective_usd, was.effective_usd);
      const bool unpriced = differ(now.unpriced_gpu_hours, was.unpriced_gpu_hours);
      if (!moved && !effective && !unpriced) continue;
      if (teams && ++said > 5) {
        ++more;
        continue;
      }
      std::vector<std::string> parts;
      if (moved) {
        parts.push_back(StrCat("allocated ", money(was, was.usd, now.usd), " -> ",
                               money(now, now.usd, was.usd)));
      }
      if (effective) {
        parts.push_back(StrCat("effective ", money(was, was.effective_usd, now.effective_usd),
                               " -> ", money(now, now.effective_usd, was.effective_usd)));
      }
      if (unpriced) {
        parts.push_back(fmt::format("unpriced GPU-hours {:.2f} -> {:.2f}", was.unpriced_gpu_hours,
                                    now.unpriced_gpu_hours));
      }
      const size_t tab = key.find('\t');
      const std::string who = tab == std::string::npos ? StrCat("cluster ", key)
                                                       : StrCat("team ", key.substr(tab + 1),
                                                                " of cluster ", key.substr(0, tab));
      LogWarn(StrCat("this write changed ", who, "'s cost", when, ": ", Join(parts, ", "),
                     " (a write replaces its clusters' records in its window)"));
    }
  }
  if (more > 0) LogWarn(StrCat("and ", more, " more teams whose money this write changed"));
}

Status WriteInto(const LedgerWriteFlags& flags) {
  if (!flags.input.ledger.empty()) {
    return Status::InvalidArgument("ledger write attributes inputs: --ledger is not one");
  }
  GPUCOST_ASSIGN_OR_RETURN(std::optional<Window> window, OptionalWindow(flags.window));
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings settings, AccumulatedSettings(flags.step, "cluster"));
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(flags.price));
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<SegmentSizing> segments,
                           SegmentsFor(flags.segments, flags.input, window));
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l, ledger::Ledger::Open(flags.path));
  if (segments) {
    GPUCOST_ASSIGN_OR_RETURN(settings.staleness, ParseDuration(flags.input.staleness));
    settings.window = *window;
    InventoryUnion units;
    SegmentWriter writer(*l, units, settings.window, settings.step);
    SegmentedOptions options;
    options.sizing = *segments;
    options.also = &writer;
    options.progress = flags.input.progress.wanted();
    options.after_segment = [&writer](Window segment) { return writer.Commit(segment); };
    GPUCOST_ASSIGN_OR_RETURN(options.prior_draws,
                             DrawsAtStart(*l, settings.window.start, settings.step));
    GPUCOST_ASSIGN_OR_RETURN(const auto before, ClusterMoney(*l, settings.window));
    GPUCOST_ASSIGN_OR_RETURN(SegmentedRun run,
                             RunSegmentedReport(MakeSegmentLoader(flags.input, settings.step),
                                                price, settings, units, options));
    PrintWarnings(run.warnings, run.run.summary, flags.input.max_warnings);
    SayChangedMoney(*l, before, NodeClusters(units.inventory()), settings.window);
    SayMovedAcross(*l, NodeClusters(units.inventory()), settings.window, settings.step);
    return Finish(*l, settings, writer.written());
  }
  GPUCOST_ASSIGN_OR_RETURN(LoadedInput input, LoadInput(flags.input, window, settings.step));
  ApplyInput(input, settings);
  if (!window) {
    // The data's own span, widened to the ledger's grid of steps (multiples of the step since the
    // epoch in a new ledger, as serve writes): samples stamped a few seconds past the minute still
    // give steps that a month, a day or another write starts on. The widening holds no sample, so
    // it costs nothing.
    GPUCOST_ASSIGN_OR_RETURN(const std::optional<int64_t> grid, l->GridOffset(settings.step));
    const Window span = input.timeline.span;
    settings.window = {GridFloor(span.start, settings.step, grid.value_or(0)),
                       GridCeil(span.end, settings.step, grid.value_or(0))};
  }
  const LoadedTimeline& timeline = input.timeline;
  GPUCOST_ASSIGN_OR_RETURN(const std::vector<KeyedDraw> prior,
                           DrawsAtStart(*l, settings.window.start, settings.step));
  settings.prior_draws = FindDraws(timeline.inventory, prior);
  ledger::LedgerSink sink(*l, timeline.inventory, settings.window, settings.step);
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, settings, &sink));
  PrintWarnings(timeline, run.summary, flags.input.max_warnings);
  const size_t written = sink.pending();
  GPUCOST_ASSIGN_OR_RETURN(const auto before, ClusterMoney(*l, settings.window));
  GPUCOST_RETURN_IF_ERROR(sink.Commit());
  SayChangedMoney(*l, before, NodeClusters(timeline.inventory), settings.window);
  SayMovedAcross(*l, NodeClusters(timeline.inventory), settings.window, settings.step);
  return Finish(*l, settings, written);
}

// A write that fails leaves no ledger it made and wrote nothing to (an input with nothing to
// attribute, a Prometheus without the cluster's data): the target is opened first, so that a bad
// one is said at once, and a SQLite file this command created is removed again.
Status Write(const LedgerWriteFlags& flags) {
  const bool postgres =
      flags.path.starts_with("postgres://") || flags.path.starts_with("postgresql://");
  std::error_code ec;
  const bool made_here = !postgres && !std::filesystem::exists(flags.path, ec);
  const Status s = WriteInto(flags);
  if (s.ok() || !made_here) return s;
  // Segments committed before a later one failed stay: only an empty ledger goes.
  bool empty = false;
  if (Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::OpenExisting(flags.path);
      l.ok()) {
    const Result<ledger::LedgerInfo> info = (*l)->Info();
    empty = info.ok() && info->records == 0;
  }
  if (empty) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::filesystem::remove(flags.path + suffix, ec);
    }
  }
  return s;
}

Status Info(const LedgerInfoFlags& flags) {
  if (flags.format != "text" && flags.format != "json") {
    return Status::InvalidArgument(
        StrCat("--format \"", flags.format, "\": expected text or json"));
  }
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l,
                           ledger::Ledger::OpenExisting(flags.path));
  GPUCOST_ASSIGN_OR_RETURN(ledger::LedgerInfo info, l->Info());
  if (flags.format == "json") {
    nlohmann::json doc = {{"path", l->path()},
                          {"schema_version", info.schema_version},
                          {"records", info.records},
                          {"units", info.units},
                          {"holders", info.holders},
                          {"steps_s", info.steps_s}};
    if (info.span) {
      doc["span"] = {{"start", FormatRfc3339(info.span->start)},
                     {"end", FormatRfc3339(info.span->end)}};
    }
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return Status::Ok();
  }
  std::string steps;
  for (int64_t s : info.steps_s) steps += StrCat(steps.empty() ? "" : ", ", s, " s");
  std::cout << fmt::format(
      "{}: schema {}, {} cost records, {} GPU units, {} holders\nspan: {}\nsteps: {}\n", l->path(),
      info.schema_version, info.records, info.units, info.holders, SpanText(info.span),
      steps.empty() ? "-" : steps);
  // Per cluster: its source, how far its continuous writer attributed, and who holds its lease.
  GPUCOST_ASSIGN_OR_RETURN(std::vector<ledger::ScopeState> scopes, l->Scopes());
  const Instant now = std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
  for (const ledger::ScopeState& c : scopes) {
    std::string line = StrCat("cluster ", c.cluster, ": ", c.source.empty() ? "-" : c.source);
    if (c.newest_step) line += StrCat(", newest step ends ", FormatRfc3339(c.newest_step->end));
    if (c.attributed_through) {
      line += StrCat(", attributed through ", FormatRfc3339(*c.attributed_through));
    }
    if (!c.writer.empty()) {
      line +=
          StrCat(c.lease_until > now ? ", written by " : ", last written by ", c.writer, " (lease ",
                 c.lease_until > now ? "until " : "ran out ", FormatRfc3339(c.lease_until), ")");
    }
    std::cout << line << "\n";
  }
  return Status::Ok();
}

// The ledger's whole check: its storage, then every rolled period against its roll-up and
// records. Damage is an error (exit 2) that lists what was found.
Status Check(const std::string& path) {
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l, ledger::Ledger::OpenExisting(path));
  GPUCOST_ASSIGN_OR_RETURN(ledger::LedgerCheck check, l->Check(/*whole=*/true));
  if (!check.problems.empty()) {
    std::string list;
    for (const std::string& p : check.problems) list += StrCat("\n  ", p);
    return Status::DataLoss(StrCat(l->path(),
                                   ": the ledger is damaged (docs/ledger.md, \"A "
                                   "damaged ledger\", says how to recover):",
                                   list));
  }
  // SQLite's pages are checked here (quick_check); PostgreSQL checks its own as it reads them.
  const bool sqlite = !ledger::IsPostgresTarget(l->path());
  // Sound and empty is worth saying: a salvage that read nothing is sound too.
  GPUCOST_ASSIGN_OR_RETURN(const std::optional<Window> span, l->Span());
  std::cout << fmt::format("{}: sound: {}{} rolled periods match their roll-ups and records{}\n",
                           l->path(), sqlite ? "its storage checked, " : "", check.periods,
                           span ? "" : "; it holds no cost records");
  return Status::Ok();
}

}  // namespace

void AddLedgerCommand(CLI::App& app, int& exit_code) {
  CLI::App* cmd = app.add_subcommand(
      "ledger",
      "The durable cost ledger (SQLite or PostgreSQL): write attributed windows, say what it "
      "holds, check it for damage");
  cmd->require_subcommand(1);

  auto w = std::make_shared<LedgerWriteFlags>();
  CLI::App* write = cmd->add_subcommand(
      "write",
      "Attribute the inputs over a window and store the cost records; writing the same window "
      "again replaces its records (late data), never adds to them");
  write->add_option("ledger", w->path,
                    "The ledger file (created when missing) or postgresql:// URI")
      ->required();
  write
      ->add_option("--window", w->window,
                   "START,END as RFC 3339 or unix seconds (default: the input's span)")
      ->check(WindowValue());
  write->add_option("--step", w->step, "Attribution step, e.g. 60s, 5m")->capture_default_str();
  AddInputFlags(*write, w->input);
  AddProgressFlags(*write, w->input.progress);
  AddSegmentFlags(*write, w->segments);
  AddPriceFlags(*write, w->price);
  AddTimelineFlags(*write, w->input);
  SetStatusCallback(*write, exit_code, [w] { return Write(*w); });

  auto i = std::make_shared<LedgerInfoFlags>();
  CLI::App* info = cmd->add_subcommand("info", "What a ledger holds: records, span, steps");
  // A file must exist (opening would create it); a postgresql:// URI is checked by connecting.
  const CLI::Validator existing_ledger(
      [](std::string& v) {
        return v.starts_with("postgresql://") || v.starts_with("postgres://")
                   ? std::string()
                   : CLI::ExistingFile(v);
      },
      "FILE|URI");
  info->add_option("ledger", i->path, "The ledger file or postgresql:// URI")
      ->required()
      ->check(existing_ledger);
  AddFormatOption(*info, i->format, {"text", "json"});
  SetStatusCallback(*info, exit_code, [i] { return Info(*i); });

  auto c = std::make_shared<std::string>();
  CLI::App* check = cmd->add_subcommand(
      "check",
      "Look for damage: the database's own check of its pages (SQLite), then every rolled "
      "period against its roll-up and its records; exit 2 when damaged");
  check->add_option("ledger", *c, "The ledger file or postgresql:// URI")
      ->required()
      ->check(existing_ledger);
  SetStatusCallback(*check, exit_code, [c] { return Check(*c); });
}

}  // namespace gpucost::cli
