#include "alerts/rule_catalog.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/money.h"
#include "core/strings.h"
#include "monitoring/metric_catalog.h"

namespace gpucost::alerts {
namespace {

namespace m = monitoring;

// Holder utilization from dcgm-exporter, per pod and node: DCGM_FI_PROF_GR_ENGINE_ACTIVE (a 0-1
// ratio) where the exporter has it, else DCGM_FI_DEV_GPU_UTIL (a 0-100 percent) / 100. Releases
// up to 4.8.2 label the node "Hostname", later ones "hostname": both become "node".
std::string DcgmUtilization(std::string_view extra_matchers) {
  auto per_pod = [&](std::string_view metric) {
    return StrCat("avg by (namespace, pod, container, node) (label_replace(label_replace(", metric,
                  "{pod!=\"\"", extra_matchers,
                  "}, \"node\", \"$1\", \"Hostname\", \"(.+)\"), \"node\", \"$1\", \"hostname\", "
                  "\"(.+)\"))");
  };
  return StrCat("(", per_pod("DCGM_FI_PROF_GR_ENGINE_ACTIVE"), " or ",
                per_pod("DCGM_FI_DEV_GPU_UTIL"), " / 100)");
}

constexpr std::string_view kNotebookName = R"(workload=~"(?i).*(notebook|jupyter).*")";
constexpr std::string_view kNotebookPod = R"(, pod=~"(?i).*(notebook|jupyter).*")";

std::string TeamHours(std::string_view matchers) {
  return StrCat("sum by (cluster, team) (increase(", m::kAllocatedGpuHoursTotal, matchers,
                "[${ratio-window}]))");
}

std::string TeamSum(std::string_view metric) {
  return StrCat("sum by (cluster, team) (increase(", metric, "[${ratio-window}]))");
}

std::vector<RuleDef> Build() {
  std::vector<RuleDef> rules;
  const std::string enough_hours =
      StrCat(" and on (cluster, team) ", TeamHours(""), " >= ${min-gpu-hours}");
  const std::string held = StrCat(" and ", m::kAllocatedGpus, " > 0");
  // --- over gpucost's own metrics; `gpucost alerts` evaluates these itself.
  rules.push_back(RuleDef{
      std::string(kGpuIdleOnDemand), std::string(kGroupCost), "warning",
      {"idle-threshold", "idle-for"},
      StrCat(m::kUtilization, "{capacity_type=\"on_demand\"} < ${idle-threshold}", held),
      "${idle-for}",
      "Idle on-demand GPUs held by {{ $labels.namespace }}/{{ $labels.workload }}",
      "{{ $labels.workload }} (team {{ $labels.team }}) holds on-demand GPUs at "
      "{{ $value | humanizePercentage }} utilization, under ${idle-threshold:text} for at least "
      "${idle-for:text}: release them or move the work to spot capacity.",
      true});
  rules.push_back(RuleDef{
      std::string(kGpuNotebookIdle), std::string(kGroupCost), "warning",
      {"idle-threshold", "notebook-idle-for"},
      StrCat(m::kUtilization, "{", kNotebookName, "} < ${idle-threshold}", held),
      "${notebook-idle-for}",
      "Notebook {{ $labels.namespace }}/{{ $labels.workload }} holds idle GPUs",
      "The notebook {{ $labels.workload }} (team {{ $labels.team }}) holds GPUs at "
      "{{ $value | humanizePercentage }} utilization, under ${idle-threshold:text} for at least "
      "${notebook-idle-for:text}: stop it or cull idle kernels.",
      true});
  rules.push_back(RuleDef{
      std::string(kGpuSpotRatioLow), std::string(kGroupCost), "info",
      {"spot-ratio-target", "ratio-window", "min-gpu-hours"},
      StrCat("(", TeamHours("{capacity_type=\"spot\"}"), " or ", TeamHours("{capacity_type!=\"\"}"),
             " * 0) / ", TeamHours("{capacity_type!=\"\"}"), " < ${spot-ratio-target}",
             enough_hours),
      "",
      "Team {{ $labels.team }} runs {{ $value | humanizePercentage }} of its GPU-hours on spot",
      "Team {{ $labels.team }} ran {{ $value | humanizePercentage }} of its GPU-hours on spot "
      "capacity over the last ${ratio-window:text}, under the ${spot-ratio-target:text} target.",
      true});
  rules.push_back(RuleDef{
      std::string(kGpuEfficiencyLow), std::string(kGroupCost), "warning",
      {"efficiency-target", "ratio-window", "min-gpu-hours"},
      StrCat(TeamSum(m::kEffectiveUsdTotal), " / (", TeamSum(m::kEffectiveUsdTotal), " + ",
             TeamSum(m::kWasteUsdTotal), ") < ${efficiency-target}", enough_hours),
      "",
      "Team {{ $labels.team }} uses {{ $value | humanizePercentage }} of the GPU cost it holds",
      "Team {{ $labels.team }}'s effective GPU cost was {{ $value | humanizePercentage }} of its "
      "allocated cost over the last ${ratio-window:text} (measured hours), under the "
      "${efficiency-target:text} target.",
      true});
  rules.push_back(RuleDef{
      std::string(kGpuBudgetForecastOverrun),
      std::string(kGroupCost),
      "warning",
      {"forecast-lookback"},
      StrCat(m::kTeamForecastUsd, " > ", m::kTeamBudgetUsd),
      "",
      "Team {{ $labels.team }} is forecast to exceed its monthly GPU budget",
      "Team {{ $labels.team }}'s GPU cost is forecast at ${{ $value | printf \"%.2f\" }} by the "
      "end of "
      "the month (month-to-date plus the last ${forecast-lookback:text}'s daily run rate), over "
      "its budget.",
      true});
  rules.push_back(
      RuleDef{std::string(kGpuPriceUnknown),
              std::string(kGroupCost),
              "warning",
              {},
              StrCat(m::kNodePriceKnown, " == 0"),
              "",
              "GPU price unknown for node {{ $labels.node }}",
              "Nothing prices the GPUs of node {{ $labels.node }} ({{ $labels.gpu_model }}): their "
              "cost is reported as unknown. Add a price rule or override (docs/pricing.md).",
              true});
  rules.push_back(RuleDef{
      std::string(kGpuTelemetryMissing), std::string(kGroupCost), "warning",
      {"telemetry-missing-for"},
      StrCat("time() - ", m::kNodeLastUsageSample, " >= ${telemetry-missing-for:seconds}",
             " and on (cluster, node) ", m::kNodeAllocatedGpus, " > 0"),
      "",
      "No GPU usage samples from node {{ $labels.node }} while its GPUs are held",
      "Node {{ $labels.node }}'s GPUs are held but no usage sample has arrived for "
      "{{ $value | humanizeDuration }} (at least ${telemetry-missing-for:text}): their "
      "utilization, effective cost and waste are unmeasured. Check dcgm-exporter or the node "
      "agent on it.",
      true});
  // --- over dcgm-exporter directly, per pod.
  rules.push_back(RuleDef{
      "GpuPodIdleOnDemand", std::string(kGroupDcgm), "warning", {"idle-threshold", "idle-for"},
      StrCat(DcgmUtilization(""), " < ${idle-threshold} and on (node) ", m::kNodeGpus,
             "{capacity_type=\"on_demand\"} > 0"),
      "${idle-for}",
      "Pod {{ $labels.namespace }}/{{ $labels.pod }} holds idle on-demand GPUs",
      "Pod {{ $labels.pod }} on node {{ $labels.node }} has used its on-demand GPUs at "
      "{{ $value | humanizePercentage }} (dcgm-exporter), under ${idle-threshold:text} for at "
      "least ${idle-for:text}.",
      false});
  rules.push_back(RuleDef{
      "GpuNotebookPodIdle",
      std::string(kGroupDcgm),
      "warning",
      {"idle-threshold", "notebook-idle-for"},
      StrCat(DcgmUtilization(kNotebookPod), " < ${idle-threshold} or ", DcgmUtilization(""),
             " < ${idle-threshold} and on (namespace, pod) "
             "kube_pod_labels{label_notebook_name!=\"\"}"),
      "${notebook-idle-for}",
      "Notebook pod {{ $labels.namespace }}/{{ $labels.pod }} holds idle GPUs",
      "The notebook pod {{ $labels.pod }} has used its GPUs at {{ $value | humanizePercentage }} "
      "(dcgm-exporter), under ${idle-threshold:text} for at least ${notebook-idle-for:text}.",
      false});
  // --- over Kueue's metrics: GPU work waiting for quota.
  rules.push_back(RuleDef{
      "KueueAdmissionWaitHigh", std::string(kGroupKueue), "warning", {"kueue-wait-threshold"},
      "histogram_quantile(0.9, sum by (cluster_queue, le) "
      "(rate(kueue_admission_wait_time_seconds_bucket[1h]))) > ${kueue-wait-threshold:seconds}",
      "15m",
      "Workloads wait long for admission in ClusterQueue {{ $labels.cluster_queue }}",
      "90% of the workloads admitted to ClusterQueue {{ $labels.cluster_queue }} in the last hour "
      "waited up to {{ $value | humanizeDuration }}, over ${kueue-wait-threshold:text}.",
      false});
  rules.push_back(RuleDef{
      "KueueQueueStalled", std::string(kGroupKueue), "warning", {"kueue-stall-for"},
      "sum by (cluster_queue) (kueue_pending_workloads{status=\"active\"}) > 0 unless on "
      "(cluster_queue) sum by (cluster_queue) "
      "(increase(kueue_admitted_workloads_total[${kueue-stall-for}])) > 0",
      "${kueue-stall-for}",
      "ClusterQueue {{ $labels.cluster_queue }} admits nothing while workloads wait",
      "{{ $value }} workloads are pending in ClusterQueue {{ $labels.cluster_queue }} and none "
      "was admitted for ${kueue-stall-for:text}.",
      false});
  rules.push_back(RuleDef{
      "KueueWorkloadsInadmissible", std::string(kGroupKueue), "info", {"kueue-stall-for"},
      "sum by (cluster_queue) (kueue_pending_workloads{status=\"inadmissible\"}) > 0",
      "${kueue-stall-for}",
      "Inadmissible workloads in ClusterQueue {{ $labels.cluster_queue }}",
      "{{ $value }} workloads in ClusterQueue {{ $labels.cluster_queue }} have been "
      "inadmissible for ${kueue-stall-for:text} (they ask for more than the queue can ever "
      "give, or a flavor that does not exist).",
      false});
  // --- over what `gpucost serve` says of its inputs.
  rules.push_back(RuleDef{
      "GpuKubeApiForbidden",
      std::string(kGroupServe),
      "warning",
      {},
      StrCat(m::kKubeApiForbidden, " == 1"),
      "10m",
      "gpucost may not read Kubernetes {{ $labels.resource }}",
      "The Kubernetes API refuses gpucost serve's account {{ $labels.resource }} (HTTP 403): "
      "DRA claims (or, for deviceclasses, the extended resources of classes other than the "
      "drivers' defaults) are not attributed, and the GPUs they hold count as idle. Grant get, "
      "list and watch on resource.k8s.io resourceslices, resourceclaims and deviceclasses "
      "(deploy/base/rbac.yaml).",
      false});
  return rules;
}

std::string Printf4g(double v, std::string_view suffix) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return StrCat(buf, suffix);
}

}  // namespace

std::span<const RuleDef> RuleCatalog() {
  static const std::vector<RuleDef> kRules = Build();
  return kRules;
}

const RuleDef* FindRule(std::string_view id) {
  for (const RuleDef& r : RuleCatalog()) {
    if (r.id == id) return &r;
  }
  return nullptr;
}

std::string HumanizePercentage(double ratio) { return Printf4g(ratio * 100, "%"); }

std::string HumanizeDuration(double seconds) {
  if (!std::isfinite(seconds)) return FormatDouble(seconds);
  if (std::fabs(seconds) < 1) return Printf4g(seconds, "s");
  const std::string sign = seconds < 0 ? "-" : "";
  int64_t s = static_cast<int64_t>(std::fabs(seconds));
  const int64_t days = s / 86400, hours = s / 3600 % 24, minutes = s / 60 % 60;
  s %= 60;
  if (days != 0) return StrCat(sign, days, "d ", hours, "h ", minutes, "m ", s, "s");
  if (hours != 0) return StrCat(sign, hours, "h ", minutes, "m ", s, "s");
  if (minutes != 0) return StrCat(sign, minutes, "m ", s, "s");
  return StrCat(sign, s, "s");
}

std::string Humanize(double v) {
  if (!std::isfinite(v) || v == 0 || std::fabs(v) < 1000) return Printf4g(v, "");
  static constexpr std::string_view kPrefixes[] = {"k", "M", "G", "T", "P", "E"};
  for (std::string_view p : kPrefixes) {
    v /= 1000;
    if (std::fabs(v) < 1000 || p == "E") return Printf4g(v, p);
  }
  return Printf4g(v, "");
}

std::string RenderTemplate(std::string_view text, const std::map<std::string, std::string>& labels,
                           double value, const AlertSettings& settings) {
  const std::string expanded = ExpandSettings(text, settings);
  std::string_view t = expanded;
  std::string out;
  size_t i = 0;
  while (i < t.size()) {
    const size_t open = t.find("{{", i);
    if (open == std::string_view::npos) break;
    const size_t close = t.find("}}", open);
    if (close == std::string_view::npos) break;
    out.append(t.substr(i, open - i));
    const std::string_view inner = Trim(t.substr(open + 2, close - open - 2));
    std::string_view fn;
    std::string_view ref = inner;
    if (const size_t bar = inner.find('|'); bar != std::string_view::npos) {
      ref = Trim(inner.substr(0, bar));
      fn = Trim(inner.substr(bar + 1));
    }
    if (ref.starts_with("$labels.")) {
      auto it = labels.find(std::string(ref.substr(8)));
      if (it != labels.end()) out += it->second;
    } else if (ref == "$value" && fn.empty()) {
      out += FormatDouble(value);
    } else if (ref == "$value" && fn == "humanize") {
      out += Humanize(value);
    } else if (ref == "$value" && fn == "humanizePercentage") {
      out += HumanizePercentage(value);
    } else if (ref == "$value" && fn == "humanizeDuration") {
      out += HumanizeDuration(value);
    } else if (ref == "$value" && fn == "printf \"%.2f\"" && !out.empty() && out.back() == '$' &&
               std::isfinite(value)) {
      // Money ("${{ $value | printf "%.2f" }}"): grouped as every text gpucost writes shows it
      // (Prometheus, which has no grouping verb, shows "$21080.64" for the same rule).
      out.pop_back();
      out += FormatUsd(value);
    } else if (ref == "$value" && fn == "printf \"%.2f\"") {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", value);
      out += buf;
    } else {
      out.append(t.substr(open, close + 2 - open));
    }
    i = close + 2;
  }
  out.append(t.substr(i));
  return out;
}

}  // namespace gpucost::alerts
