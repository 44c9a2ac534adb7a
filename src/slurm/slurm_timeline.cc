#include "slurm/slurm_timeline.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>

#include "core/strings.h"
#include "inventory/resource_names.h"
#include "inventory/series_timeline.h"

namespace gpucost::slurm {
namespace {

constexpr std::string_view kWholeResource = "nvidia.com/gpu";
constexpr std::string_view kPartitionLabel = "slurm.partition";

// What one node needs, gathered over the jobs that ran on it.
struct NodeDemand {
  std::string cluster;
  std::string name;
  // resource class ("" = whole GPUs, else the MIG profile) -> (time, +/-count) events
  std::map<std::string, std::vector<std::pair<Instant, int>>> events;
  std::set<std::string> whole_types;
  std::string mig_model_hint;
  std::set<std::string> partitions;
};

// Most units of one class held at one time. Ends sort before starts at the same instant.
int PeakConcurrent(std::vector<std::pair<Instant, int>> events) {
  std::sort(events.begin(), events.end());
  int now = 0;
  int peak = 0;
  for (const auto& [t, delta] : events) {
    now += delta;
    peak = std::max(peak, now);
  }
  return peak;
}

// count split over n nodes: the first count % n nodes get one more.
int ShareOf(int count, size_t n, size_t i) {
  const int base = count / static_cast<int>(n);
  return base + (static_cast<int>(i) < count % static_cast<int>(n) ? 1 : 0);
}

template <typename Map>
const typename Map::mapped_type* Find(const Map& m, const std::string& key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

struct MigSlot {
  std::string profile;  // as the jobs named it (canonical spelling)
  int slices = 1;
};

// Builds the units of one node: MIG GPUs first (slots packed first-fit, largest profiles
// first), then whole GPUs. Returns the physical GPU count.
int AddUnits(Inventory& inv, NodeIndex n, const NodeDemand& d, const SlurmOptions& options,
             Diagnostics& diag) {
  Node& node = inv.nodes[n];
  const MigModel* model = DetectMigModel(node.gpu_model);
  if (model == nullptr && !d.mig_model_hint.empty()) model = DetectMigModel(d.mig_model_hint);
  const int gpu_slices = model != nullptr ? model->compute_slices : 7;

  int whole_needed = 0;
  std::vector<MigSlot> slots;
  for (const auto& [cls, events] : d.events) {
    const int peak = PeakConcurrent(events);
    if (cls.empty()) {
      whole_needed = peak;
      continue;
    }
    const auto parsed = ParseMigProfileName(cls);
    const int slices = parsed ? std::clamp(parsed->compute_slices, 1, gpu_slices) : 1;
    for (int k = 0; k < peak; ++k) slots.push_back({cls, slices});
  }
  std::stable_sort(slots.begin(), slots.end(),
                   [](const MigSlot& a, const MigSlot& b) { return a.slices > b.slices; });
  std::vector<std::vector<const MigSlot*>> mig_gpus;
  std::vector<int> free;
  for (const MigSlot& s : slots) {
    size_t g = 0;
    while (g < free.size() && free[g] < s.slices) ++g;
    if (g == free.size()) {
      free.push_back(gpu_slices);
      mig_gpus.emplace_back();
    }
    free[g] -= s.slices;
    mig_gpus[g].push_back(&s);
  }
  const int mig_count = static_cast<int>(mig_gpus.size());
  const int* configured_ptr = Find(options.gpus_per_node, node.name);
  const int configured = configured_ptr != nullptr ? *configured_ptr : options.default_gpus_per_node;
  int whole_count = whole_needed;
  if (configured > 0) {
    if (configured < mig_count + whole_needed) {
      diag.Warn(StrCat("node ", node.name, ": jobs held ", mig_count + whole_needed,
                       " GPUs at one time but the node is configured with ", configured,
                       "; using ", mig_count + whole_needed));
    } else {
      whole_count = configured - mig_count;
    }
  }

  int gpu_index = 0;
  for (const auto& gpu : mig_gpus) {
    const std::string uuid = StrCat(node.name, "-gpu", gpu_index++);
    int used = 0;
    int gi = 0;
    for (const MigSlot* s : gpu) {
      GpuUnit u;
      u.node = n;
      u.gpu_uuid = uuid;
      u.gpu_model = node.gpu_model;
      u.partition = {PartitionKind::kMig, gi};
      u.gpu_instance_id = gi++;
      u.resource = MigResourceName(s->profile);
      const MigProfile* p = model != nullptr ? FindMigProfile(*model, s->profile) : nullptr;
      if (p != nullptr) {
        u.mig_profile = p->name;
        u.fraction = MigFraction(*model, *p, options.mig_weight);
      } else {
        u.mig_profile = s->profile;
        u.fraction = MigFractionWithoutModel(s->profile, options.mig_weight)
                         .value_or(static_cast<double>(s->slices) / gpu_slices);
      }
      used += s->slices;
      inv.units.push_back(std::move(u));
    }
    if (used < gpu_slices) {
      GpuUnit rest;  // slices no job was seen to hold: capacity nobody can request
      rest.node = n;
      rest.gpu_uuid = uuid;
      rest.gpu_model = node.gpu_model;
      rest.fraction = static_cast<double>(gpu_slices - used) / gpu_slices;
      rest.holdable = false;
      inv.units.push_back(std::move(rest));
    }
  }
  for (int i = 0; i < whole_count; ++i) {
    GpuUnit u;
    u.node = n;
    u.gpu_uuid = StrCat(node.name, "-gpu", gpu_index++);
    u.gpu_model = node.gpu_model;
    u.resource = std::string(kWholeResource);
    inv.units.push_back(std::move(u));
  }
  node.sharing = mig_count > 0 ? SharingMode::kMig : SharingMode::kNone;
  return gpu_index;
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

Window Hull(const Window& a, const Window& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.start, b.start), std::max(a.end, b.end)};
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
  bool have_span = false;
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
    h.workload = job.job_name.empty() ? job.job_id : job.job_name;
    h.workload_kind = "SlurmJob";
    const std::string* team = Find(options.account_teams, job.account);
    h.team = team != nullptr ? *team : job.account;
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
        demand.push_back(NodeDemand{cluster, job.nodes[i], {}, {}, {}, {}});
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
    inv.nodes.push_back(std::move(node));
    inv.nodes[n].physical_gpus = AddUnits(inv, n, d, options, diag);
  }
  AddBillingRates(out, held_jobs, options, source, diag);
  AddGpuUtilSeries(out, held_jobs, options, diag);
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

namespace {

// Whether a job id written on a GPU (dcgm-exporter's hpc_job, the agent's slurm_job) names this
// job: its JobIDRaw ($SLURM_JOB_ID in a prolog, job_<id> in a cgroup) or the id as sacct prints it
// ("2736118_0", "77+1").
bool NamesJob(const std::string& label, const Holder& h) {
  return label == h.pod_uid || label == h.pod;
}

// A job id on a unit of a node: from a dcgm-exporter hpc_job label or a node agent series.
struct UnitJob {
  NodeIndex node = kNoIndex;
  UnitIndex unit = kNoIndex;
  const std::string* job = nullptr;
  size_t source = 0;  // index into the caller's list
};
using UnitJobsByNode = std::map<NodeIndex, std::vector<UnitJob>>;

// The ids among `on_node` that name the holder of holdings[i]: by NamesJob, else the het job's
// leading id ("77" for "77+1") when the holder is the only component of that het job on the node.
std::vector<const UnitJob*> MatchJob(const Inventory& inv, size_t first_holding, size_t i,
                                     const std::vector<UnitJob>& on_node) {
  std::vector<const UnitJob*> matched;
  const Holding& held = inv.holdings[i];
  const Holder& holder = inv.holders[held.holder];
  for (const UnitJob& j : on_node) {
    if (NamesJob(*j.job, holder)) matched.push_back(&j);
  }
  const std::string_view het = holder.labels.Get("het_job_id");
  if (!matched.empty() || het.empty()) return matched;
  for (size_t k = first_holding; k < inv.holdings.size(); ++k) {
    const Holding& o = inv.holdings[k];
    if (o.node == held.node && o.holder != held.holder &&
        inv.holders[o.holder].labels.Get("het_job_id") == het) {
      return matched;
    }
  }
  for (const UnitJob& j : on_node) {
    if (*j.job == het) matched.push_back(&j);
  }
  return matched;
}

// Pins Slurm holdings on taken-over nodes to the units whose job ids name their job, except
// holdings of the (holder, node) pairs in `skip`. Only units of the requested resource count;
// fewer than the request: the rest is drawn from the node's pool; more: a warning, and the whole
// request is drawn from the pool. Returns the (holder, node) pairs pinned.
std::set<std::pair<HolderIndex, NodeIndex>> PinToUnits(
    LoadedTimeline& target, size_t first_holding, const UnitJobsByNode& by_node,
    const std::set<std::pair<HolderIndex, NodeIndex>>& skip, std::string_view who) {
  Inventory& inv = target.inventory;
  std::set<std::pair<HolderIndex, NodeIndex>> pinned;
  const size_t n_holdings = inv.holdings.size();
  for (size_t i = first_holding; i < n_holdings && !by_node.empty(); ++i) {
    auto it = by_node.find(inv.holdings[i].node);
    if (it == by_node.end() || skip.contains({inv.holdings[i].holder, inv.holdings[i].node})) {
      continue;
    }
    std::vector<UnitIndex> units;
    for (const UnitJob* j : MatchJob(inv, first_holding, i, it->second)) {
      const GpuUnit& u = inv.units[j->unit];
      if (!u.holdable || u.resource != inv.holdings[i].request.resource) continue;
      if (std::find(units.begin(), units.end(), j->unit) == units.end()) units.push_back(j->unit);
    }
    if (units.empty()) continue;
    Holding& h = inv.holdings[i];
    const auto want = static_cast<size_t>(std::llround(h.request.count));
    if (units.size() > want) {
      target.warnings.push_back(InputWarning{
          "", 0,
          StrCat("slurm job ", inv.holders[h.holder].pod, " on node ", inv.nodes[h.node].name, ": ",
                 who, " ", units.size(), " devices with the job, which holds ", want,
                 "; the job draws from the node's GPUs instead"),
          1});
      continue;
    }
    std::sort(units.begin(), units.end());
    pinned.insert({h.holder, h.node});
    if (units.size() < want) {
      Holding rest = h;  // the GPUs no id was seen on still come from the pool
      rest.request.count = static_cast<double>(want - units.size());
      h.request.count = static_cast<double>(units.size());
      h.units = std::move(units);
      inv.holdings.push_back(std::move(rest));
    } else {
      h.units = std::move(units);
    }
  }
  return pinned;
}

// dcgm-exporter's hpc_job labels on taken-over nodes, by node.
UnitJobsByNode DeviceJobsByNode(const LoadedTimeline& target, const std::set<NodeIndex>& adopted) {
  UnitJobsByNode out;
  for (size_t k = 0; k < target.device_jobs.size(); ++k) {
    const DeviceJob& j = target.device_jobs[k];
    if (adopted.contains(j.node)) out[j.node].push_back(UnitJob{j.node, j.unit, &j.job, k});
  }
  return out;
}

// The job's per-job activity on one whole GPU from its agent series, plus 0 at each instant the
// agent measured every process of the GPU while the job held it and saw none of the job's
// (measured idle), from the last such instant before the holding, which stands for its start.
std::vector<UsageSample> JobSamples(const std::vector<const AgentJobActivity*>& parts,
                                    const std::vector<Interval>& held) {
  std::map<Instant, double> values;
  for (const AgentJobActivity* a : parts) {
    for (const UsageSample& s : a->samples) {
      // Two ids of one job on one GPU are parts of its activity: they add up.
      auto [it, fresh] = values.emplace(s.t, s.value);
      if (!fresh && !std::isnan(s.value)) {
        it->second = std::isnan(it->second) ? s.value : std::min(1.0, it->second + s.value);
      }
    }
  }
  // The parts are of one GPU: they share its measured instants.
  if (parts.front()->measured != nullptr) {
    const std::vector<Instant>& at = *parts.front()->measured;
    for (const Interval& iv : held) {
      auto t = std::lower_bound(at.begin(), at.end(), iv.start);
      if (t != at.begin() && (t == at.end() || *t > iv.start)) --t;
      for (; t != at.end() && *t < iv.end; ++t) values.emplace(*t, 0.0);
    }
  }
  std::vector<UsageSample> out;
  out.reserve(values.size());
  for (const auto& [t, v] : values) out.push_back(UsageSample{t, v});
  return out;
}

// Joins the node agent's per-job series (target.agent_jobs) to the Slurm holdings on taken-over
// nodes: pins each job to the units the agent measured it on, and gives it a per-holder series
// on each of those whole GPUs. Series that name no Slurm job holding GPUs on their node are
// warned about, one warning per node. Returns the (holder, node) pairs pinned and the holders
// given series.
std::pair<std::set<std::pair<HolderIndex, NodeIndex>>, std::set<HolderIndex>> JoinAgentJobs(
    LoadedTimeline& target, size_t first_holding, const std::set<NodeIndex>& adopted) {
  Inventory& inv = target.inventory;
  UnitJobsByNode by_node;
  for (size_t k = 0; k < target.agent_jobs.size(); ++k) {
    const AgentJobActivity& j = target.agent_jobs[k];
    if (adopted.contains(j.node)) by_node[j.node].push_back(UnitJob{j.node, j.unit, &j.job, k});
  }
  // Which series name which holder, before pinning splits holdings.
  std::vector<bool> used(target.agent_jobs.size(), false);
  std::map<std::pair<HolderIndex, UnitIndex>, std::vector<const AgentJobActivity*>> parts;
  std::map<std::pair<HolderIndex, NodeIndex>, std::vector<Interval>> held;
  for (size_t i = first_holding; i < inv.holdings.size(); ++i) {
    const Holding& h = inv.holdings[i];
    auto it = by_node.find(h.node);
    if (it == by_node.end()) continue;
    const std::vector<const UnitJob*> matched = MatchJob(inv, first_holding, i, it->second);
    if (matched.empty()) continue;
    std::vector<Interval>& when = held[{h.holder, h.node}];
    if (std::find(when.begin(), when.end(), h.interval) == when.end()) when.push_back(h.interval);
    for (const UnitJob* j : matched) {
      std::vector<const AgentJobActivity*>& list = parts[{h.holder, j->unit}];
      const AgentJobActivity* a = &target.agent_jobs[j->source];
      if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
      used[j->source] = true;
    }
  }
  // One warning per node, naming its first unmatched job and counting the others.
  std::set<std::pair<std::string, NodeIndex>> unmatched;
  std::map<NodeIndex, size_t> warning_of_node;
  for (size_t k = 0; k < target.agent_jobs.size(); ++k) {
    const AgentJobActivity& j = target.agent_jobs[k];
    if (used[k] || !unmatched.insert({j.job, j.node}).second) continue;
    if (auto w = warning_of_node.find(j.node); w != warning_of_node.end()) {
      ++target.warnings[w->second].count;
      continue;
    }
    warning_of_node.emplace(j.node, target.warnings.size());
    target.warnings.push_back(InputWarning{
        j.source, j.first_line,
        StrCat("node agent: GPU activity of Slurm job ", j.job, " on node ", inv.nodes[j.node].name,
               " matches no Slurm job holding GPUs on that node",
               adopted.contains(j.node) ? "" : " (no Slurm node took it over)",
               "; it counts only in the GPU's activity"),
        1});
  }

  const auto pinned = PinToUnits(target, first_holding, by_node, {}, "the node agent measures");
  std::set<HolderIndex> measured;
  for (auto& [key, list] : parts) {
    const auto [holder, unit] = key;
    const GpuUnit& u = inv.units[unit];
    // A MIG instance's activity is its holder's already; per-holder series are for whole GPUs.
    if (u.partition.kind == PartitionKind::kMig || list.front()->gpu_instance_id >= 0) continue;
    std::vector<UsageSample> samples = JobSamples(list, held[{holder, u.node}]);
    if (samples.empty()) continue;
    target.usage.holders.push_back(
        HolderDeviceSeries{holder, u.node, u.gpu_uuid, -1, std::move(samples)});
    measured.insert(holder);
  }
  return {pinned, measured};
}

}  // namespace

void MergeSlurmTimeline(LoadedTimeline& target, SlurmTimeline slurm,
                        const std::string& unlabelled_cluster) {
  Inventory& inv = target.inventory;
  const auto unit0 = static_cast<UnitIndex>(inv.units.size());
  const auto holder0 = static_cast<HolderIndex>(inv.holders.size());
  const size_t holding0 = inv.holdings.size();

  // Nodes the target knows only from dcgm data (no Kubernetes holding), by name.
  std::vector<bool> k8s_held(inv.nodes.size(), false);
  for (const Holding& h : inv.holdings) {
    if (h.node != kNoIndex) k8s_held[h.node] = true;
    for (UnitIndex u : h.units) k8s_held[inv.units[u].node] = true;
  }
  std::map<std::string, std::vector<NodeIndex>> by_name;
  for (NodeIndex n = 0; n < inv.nodes.size(); ++n) {
    if (!k8s_held[n]) by_name[inv.nodes[n].name].push_back(n);
  }
  std::vector<NodeIndex> node_map(slurm.inventory.nodes.size(), kNoIndex);
  std::set<NodeIndex> adopted;
  for (NodeIndex s = 0; s < slurm.inventory.nodes.size(); ++s) {
    Node& sn = slurm.inventory.nodes[s];
    auto it = by_name.find(sn.name);
    NodeIndex pick = kNoIndex;
    if (it != by_name.end()) {
      for (NodeIndex t : it->second) {
        const std::string& c = inv.nodes[t].cluster;
        if (adopted.contains(t) || (c != sn.cluster && c != unlabelled_cluster)) continue;
        if (pick == kNoIndex || c == sn.cluster) pick = t;
      }
    }
    if (pick == kNoIndex) {
      node_map[s] = static_cast<NodeIndex>(inv.nodes.size());
      inv.nodes.push_back(std::move(sn));
      continue;
    }
    Node& t = inv.nodes[pick];
    if (sn.physical_gpus > t.physical_gpus) {
      target.warnings.push_back(InputWarning{
          "", 0,
          StrCat("node ", sn.name, ": Slurm jobs held ", sn.physical_gpus, " GPUs at one time, "
                 "dcgm-exporter shows ", t.physical_gpus, "; the dcgm count is used"),
          1});
    }
    t.cluster = sn.cluster;
    for (const Label& l : sn.labels) t.labels = t.labels.With(l.name, l.value);
    t.present = UnionIntervals(t.present, sn.present);
    node_map[s] = pick;
    adopted.insert(pick);
  }
  for (GpuUnit& u : slurm.inventory.units) {
    if (adopted.contains(node_map[u.node])) continue;  // the node's real GPUs stand instead
    u.node = node_map[u.node];
    inv.units.push_back(std::move(u));
  }
  for (Holder& h : slurm.inventory.holders) inv.holders.push_back(std::move(h));
  for (Holding& h : slurm.inventory.holdings) {
    h.holder += holder0;
    h.node = node_map[h.node];
    for (UnitIndex& u : h.units) u += unit0;
    inv.holdings.push_back(std::move(h));
  }
  // The agent measures each job's own processes: its pins and series come first; dcgm-exporter's
  // hpc_job labels pin the holdings it does not.
  const auto [agent_pinned, agent_measured] = JoinAgentJobs(target, holding0, adopted);
  const auto dcgm_pinned = PinToUnits(target, holding0, DeviceJobsByNode(target, adopted),
                                      agent_pinned, "dcgm-exporter labels");
  std::set<HolderIndex> measured = agent_measured;
  for (const auto& [holder, node] : agent_pinned) measured.insert(holder);
  for (const auto& [holder, node] : dcgm_pinned) measured.insert(holder);
  for (HolderDeviceSeries& series : slurm.usage.holders) {
    series.holder += holder0;
    if (measured.contains(series.holder)) continue;  // measured on its own GPUs instead
    target.usage.holders.push_back(std::move(series));
  }
  target.span = Hull(target.span, slurm.span);
  target.window = Hull(target.window, slurm.window);
  for (InputWarning& w : slurm.warnings) target.warnings.push_back(std::move(w));
  target.parse_errors += slurm.stats.malformed_lines;
}

}  // namespace gpucost::slurm
