#include "slurm/slurm_timeline.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <tuple>

#include "core/strings.h"
#include "inventory/resource_names.h"
#include "inventory/series_timeline.h"
#include "slurm/slurm_node_units.h"
#include "slurm/window_hull.h"

namespace gpucost::slurm {
namespace {

constexpr std::string_view kPartitionLabel = "slurm.partition";

// count split over n nodes: the first count % n nodes get one more.
int ShareOf(int count, size_t n, size_t i) {
  const int base = count / static_cast<int>(n);
  return base + (static_cast<int>(i) < count % static_cast<int>(n) ? 1 : 0);
}

using HeldJobs = std::vector<std::pair<const SacctJob*, Interval>>;

// GPU equivalents each holder requests over all its nodes (MIG slices at their unit fraction).
std::vector<double> GpuEquivalents(const Inventory& inv) {
  std::map<std::pair<NodeIndex, std::string>, double> fraction;
  for (const GpuUnit& u : inv.units) {
    if (u.holdable) fraction.emplace(std::make_pair(u.node, u.resource), u.fraction);
  }
  std::vector<double> out(inv.holders.size(), 0.0);
  for (const Holding& h : inv.holdings) {
    auto it = fraction.find({h.node, h.request.resource});
    out[h.holder] += h.request.count * (it != fraction.end() ? it->second : 1.0);
  }
  return out;
}

void AddBillingRates(SlurmTimeline& out, const HeldJobs& jobs, const SlurmOptions& options,
                     const std::string& source, Diagnostics& diag) {
  const std::vector<double> gpu_eq = GpuEquivalents(out.inventory);
  for (HolderIndex h = 0; h < jobs.size(); ++h) {
    const SacctJob& job = *jobs[h].first;
    std::optional<double> billing;
    if (options.billing) {
      // A job runs in one partition; a list is printed only for jobs that never started.
      const std::string partition(Trim(Split(job.partition, ',').front()));
      auto p = options.billing->partitions.find(partition);
      if (p == options.billing->partitions.end()) {
        diag.Warn(StrCat("billing-partition:", partition), source, job.line,
                  StrCat("partition \"", partition, "\" is not in the billing weights; its jobs "
                         "have no billing units"));
      } else {
        auto b = BillingOf(job.alloc_tres, p->second, options.billing->max_tres);
        if (!b.ok()) {
          diag.Warn("billing-tres", source, job.line, StrCat("AllocTRES: ", b.status().message(),
                                                             "; no billing units"));
        } else {
          billing = *b;
          const std::optional<double> recorded = RecordedBilling(job.alloc_tres);
          if (recorded && *recorded != *billing) {
            diag.Warn("billing-differs", source, job.line,
                      StrCat("job ", job.job_id, ": billing from the weights is ", *billing,
                             ", Slurm recorded billing=", *recorded, " (weights changed since?)"));
          }
        }
      }
    } else {
      billing = RecordedBilling(job.alloc_tres);
    }
    if (billing && gpu_eq[h] > 0) out.inventory.holders[h].billing_per_gpu_hour = *billing / gpu_eq[h];
  }
}

// A job's utilization from its steps' gres/gpuutil: at each instant, the sum over the steps
// running then of percent_total / (100 x the job's GPUs), at most 1; NaN (unmeasured) while no
// step with a value runs. Sampled every usage_sample_interval and at each step boundary.
void AddGpuUtilSeries(SlurmTimeline& out, const HeldJobs& jobs, const SlurmOptions& options,
                      Diagnostics& diag) {
  const Duration every = options.usage_sample_interval > Duration(0)
                             ? options.usage_sample_interval
                             : Duration(std::chrono::seconds(60));
  for (HolderIndex h = 0; h < jobs.size(); ++h) {
    const SacctJob& job = *jobs[h].first;
    const Interval held = jobs[h].second;
    if (job.step_gpu_util.empty()) continue;
    if (!job.gpus.mig.empty()) {
      diag.Warn("gpuutil-mig", "", 0, StrCat("job ", job.job_id, " holds MIG slices: its gres/gpuutil is "
                                      "not used (NVML does not measure per-process use on MIG)"));
      continue;
    }
    if (job.gpus.whole <= 0) continue;
    std::vector<Instant> times;
    for (Instant t = held.start; t < held.end; t += every) times.push_back(t);
    for (const StepGpuUtil& st : job.step_gpu_util) {
      for (Instant t : {st.start, st.end.value_or(held.end)}) {
        if (t > held.start && t < held.end) times.push_back(t);
      }
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    HolderDeviceSeries series;
    series.holder = h;
    for (Instant t : times) {
      double sum = 0;
      bool any = false;
      for (const StepGpuUtil& st : job.step_gpu_util) {
        if (st.start <= t && t < st.end.value_or(held.end)) {
          sum += st.percent_total;
          any = true;
        }
      }
      const double v = any ? std::min(1.0, sum / (100.0 * job.gpus.whole)) : std::nan("");
      series.samples.push_back(UsageSample{t, v});
    }
    if (series.samples.empty()) continue;
    out.usage.holders.push_back(std::move(series));
    ++out.stats.gpuutil_jobs;
  }
}

// Running jobs (End=Unknown) held to the end of a window the user did not give, past the latest
// time the file holds: said, with where the window came from.
void WarnRunningPastTheFile(const SacctParse& parsed, const SlurmOptions& options,
                            const std::string& source, Diagnostics& diag) {
  bool running = false;
  Instant latest = parsed.jobs.empty() ? options.window->start : parsed.jobs.front().start;
  for (const SacctJob& j : parsed.jobs) {
    latest = std::max(latest, j.end.value_or(j.start));
    running = running || (!j.end && j.start < options.window->end);
  }
  if (!running || latest >= options.window->end) return;
  diag.Warn("running", source, 0,
            StrCat("running jobs (End=Unknown) are held to ", FormatRfc3339(options.window->end),
                   ", the end of ", options.window_origin, ", past the latest time in the file (",
                   FormatRfc3339(latest), "); give a window to cut them elsewhere"));
}

// With an account-teams file, the accounts of held jobs that no line maps are their own team:
// said once, naming the file and the accounts (a misspelt line costs a team its jobs), with the
// line that differs only in case where there is one (Slurm keeps account names in lower case).
void WarnUnmappedAccounts(const std::set<std::string>& unmapped, const SlurmOptions& options,
                          Diagnostics& diag) {
  if (unmapped.empty()) return;
  std::map<std::string, std::string> by_lower;
  for (const auto& [account, team] : options.account_teams)
    by_lower.emplace(ToLower(account), account);
  std::string names;
  size_t listed = 0;
  for (const std::string& account : unmapped) {
    if (++listed > 10) {
      names += StrCat(" and ", unmapped.size() - 10, " more");
      break;
    }
    if (!names.empty()) names += ", ";
    names += StrCat("\"", account, "\"");
    const auto near = by_lower.find(ToLower(account));
    if (near != by_lower.end()) names += StrCat(" (the file has \"", near->second, "\")");
  }
  diag.Warn("account-teams", options.account_teams_source, 0,
            StrCat(unmapped.size(), unmapped.size() == 1 ? " account" : " accounts",
                   " with GPU jobs in the window ", unmapped.size() == 1 ? "is" : "are",
                   " in no line of the file, so each is its own team: ", names));
}

}  // namespace

Result<SlurmTimeline> BuildSlurmTimeline(const SacctParse& parsed, const SlurmOptions& options,
                                         const std::string& source) {
  SlurmTimeline out;
  out.warnings = parsed.warnings;
  out.stats.lines = parsed.lines;
  out.stats.steps_skipped = parsed.steps_skipped;
  out.stats.pending_skipped = parsed.pending_skipped;
  out.stats.no_gpu_skipped = parsed.no_gpu_skipped;
  out.stats.malformed_lines = parsed.malformed_lines;
  Diagnostics diag;

  if (options.window) {
    if (options.window->empty()) return Status::InvalidArgument("the Slurm window is empty");
    out.window = *options.window;
    if (!options.window_origin.empty()) WarnRunningPastTheFile(parsed, options, source, diag);
  } else if (!parsed.jobs.empty()) {
    Instant lo = parsed.jobs.front().start;
    Instant hi = lo;
    bool running = false;
    for (const SacctJob& j : parsed.jobs) {
      lo = std::min(lo, j.start);
      hi = std::max(hi, j.end.value_or(j.start));
      running = running || !j.end;
    }
    out.window = {lo, hi};
    if (running) {
      diag.Warn("running", source, 0,
                StrCat("running jobs (End=Unknown) are cut at ", FormatRfc3339(hi),
                       ", the latest time in the file; give a window to cut them elsewhere"));
    }
  }

  Inventory& inv = out.inventory;
  std::map<std::pair<std::string, std::string>, NodeIndex> node_index;
  std::vector<NodeDemand> demand;
  std::vector<std::pair<const SacctJob*, Interval>> held_jobs;  // per holder
  std::set<std::string> unmapped;  // accounts of held jobs the account-teams file does not map
  bool have_span = false;
  // sacct --duplicates prints each run of a requeued job with the same JobIDRaw. Every run but
  // the latest is a holder named apart (container "requeued@<start>"), so that runs sharing a
  // step and a GPU stay two records in a ledger, whose key is the holder's identity.
  std::map<std::pair<std::string, std::string>, Instant> latest_run;
  for (const SacctJob& job : parsed.jobs) {
    auto [it, fresh] = latest_run.try_emplace({job.cluster, job.job_id_raw}, job.start);
    if (!fresh) it->second = std::max(it->second, job.start);
  }
  for (const SacctJob& job : parsed.jobs) {
    const Instant end = job.end.value_or(out.window.end);
    const Window whole_run{job.start, std::max(job.start, end)};
    const Interval held{std::max(job.start, out.window.start), std::min(end, out.window.end)};
    if (held.end <= held.start) {
      ++out.stats.outside_window;
      continue;
    }
    out.span = have_span ? Hull(out.span, whole_run) : whole_run;
    have_span = true;
    ++out.stats.jobs;

    const std::string cluster = job.cluster.empty() ? options.cluster : job.cluster;
    Holder h;
    h.kind = HolderKind::kSlurmJob;
    h.cluster = cluster;
    h.namespace_name = job.account;
    h.pod = job.job_id;
    h.pod_uid = job.job_id_raw;
    if (job.start < latest_run.at({job.cluster, job.job_id_raw})) {
      h.container = StrCat("requeued@", FormatRfc3339(job.start));
    }
    h.workload = job.job_name.empty() ? job.job_id : job.job_name;
    h.workload_kind = "SlurmJob";
    const std::string* team = Find(options.account_teams, job.account);
    h.team = team != nullptr ? *team : job.account;
    if (team == nullptr && !options.account_teams.empty()) unmapped.insert(job.account);
    std::vector<Label> labels = {
        {"user", job.user},           {"account", job.account}, {"partition", job.partition},
        {"qos", job.qos},             {"state", job.state},     {"cluster", cluster},
        {"array_job_id", job.array_job_id}, {"array_task_id", job.array_task_id},
        {"het_job_id", job.het_job_id},
        {"het_job_offset", job.het_job_offset >= 0 ? std::to_string(job.het_job_offset) : ""}};
    GPUCOST_ASSIGN_OR_RETURN(h.labels, LabelSet::Make(std::move(labels)));
    const HolderIndex hi = static_cast<HolderIndex>(inv.holders.size());
    inv.holders.push_back(std::move(h));
    held_jobs.push_back({&job, held});

    // AllocTRES counts are the job's totals: spread them evenly over its nodes.
    std::vector<std::pair<std::string, int>> classes;  // ("" or MIG profile, total)
    if (job.gpus.whole > 0) classes.emplace_back("", job.gpus.whole);
    for (const auto& [profile, count] : job.gpus.mig) classes.emplace_back(profile, count);
    for (size_t i = 0; i < job.nodes.size(); ++i) {
      auto [it, inserted] = node_index.emplace(std::make_pair(cluster, job.nodes[i]),
                                               static_cast<NodeIndex>(demand.size()));
      if (inserted) {
        demand.push_back(NodeDemand{cluster, job.nodes[i], {}, {}, {}, {}, {}, {}});
      }
      NodeDemand& d = demand[it->second];
      for (std::string_view p : Split(job.partition, ',')) {
        if (!Trim(p).empty()) d.partitions.emplace(Trim(p));
      }
      if (!job.gpus.whole_type.empty()) d.whole_types.insert(job.gpus.whole_type);
      if (!job.gpus.mig_model_hint.empty()) d.mig_model_hint = job.gpus.mig_model_hint;
      for (const auto& [cls, total] : classes) {
        const int count = ShareOf(total, job.nodes.size(), i);
        if (count <= 0) continue;
        d.events[cls].emplace_back(held.start, count);
        d.events[cls].emplace_back(held.end, -count);
        if (cls.empty() && !job.gpus.whole_type.empty()) {
          d.typed_holdings[job.gpus.whole_type].push_back(inv.holdings.size());
        } else if (cls.empty()) {
          d.untyped_whole.emplace_back(held.start, count);
          d.untyped_whole.emplace_back(held.end, -count);
        }
        Holding holding;
        holding.holder = hi;
        holding.node = it->second;
        holding.interval = held;
        holding.request.resource = cls.empty() ? std::string(kWholeResource) : MigResourceName(cls);
        holding.request.count = count;
        inv.holdings.push_back(std::move(holding));
      }
    }
  }
  if (!have_span) out.span = {out.window.start, out.window.start};

  for (NodeIndex n = 0; n < demand.size(); ++n) {
    const NodeDemand& d = demand[n];
    Node node;
    node.cluster = d.cluster;
    node.name = d.name;
    const std::string* model = Find(options.gpu_models, d.name);
    if (model != nullptr) {
      node.gpu_model = *model;
    } else if (!options.default_gpu_model.empty()) {
      node.gpu_model = options.default_gpu_model;
    } else if (d.whole_types.size() == 1) {
      node.gpu_model = *d.whole_types.begin();
    } else if (!d.mig_model_hint.empty()) {
      node.gpu_model = d.mig_model_hint;
    }
    node.present = {Interval{out.window.start, out.window.end}};
    if (!d.partitions.empty()) {
      std::vector<std::string> parts(d.partitions.begin(), d.partitions.end());
      node.labels = LabelSet({{kPartitionLabel, Join(parts, ",")}});
    }
    // Two GPU types or more on a node (so whole GPUs), no MIG and no model configured: units
    // per type.
    const bool typed = node.gpu_model.empty() && d.whole_types.size() > 1 && d.events.size() == 1;
    inv.nodes.push_back(std::move(node));
    inv.nodes[n].physical_gpus =
        typed ? AddTypedUnits(inv, n, d, options, diag) : AddUnits(inv, n, d, options, diag);
  }
  AddBillingRates(out, held_jobs, options, source, diag);
  AddGpuUtilSeries(out, held_jobs, options, diag);
  WarnUnmappedAccounts(unmapped, options, diag);
  for (const InputWarning& w : diag.warnings()) out.warnings.push_back(w);
  return out;
}

Result<SlurmTimeline> LoadSacctText(std::string_view text, const SlurmOptions& options,
                                    const std::string& source) {
  GPUCOST_ASSIGN_OR_RETURN(SacctParse parsed, ParseSacct(text, options.format, source));
  return BuildSlurmTimeline(parsed, options, source);
}

Result<SlurmTimeline> LoadSacct(const std::string& path, const SlurmOptions& options) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::IoError(StrCat("cannot open sacct file ", path));
    std::ostringstream buf;
    buf << in.rdbuf();
    if (in.bad()) return Status::IoError(StrCat("cannot read sacct file ", path));
    text = std::move(buf).str();
  }
  return LoadSacctText(text, options, path == "-" ? std::string("<stdin>") : path);
}

LoadedTimeline ToLoadedTimeline(SlurmTimeline slurm) {
  LoadedTimeline out;
  out.inventory = std::move(slurm.inventory);
  out.usage = std::move(slurm.usage);
  out.span = slurm.span;
  out.window = slurm.window;
  out.warnings = std::move(slurm.warnings);
  out.parse_errors = slurm.stats.malformed_lines;
  return out;
}

}  // namespace gpucost::slurm
