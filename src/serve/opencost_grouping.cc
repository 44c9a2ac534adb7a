#include "serve/opencost_grouping.h"

#include <array>

#include "core/strings.h"

namespace gpucost::serve {
namespace {

// The columns every grouping computes, in this order; team and labels follow when asked for.
enum Column : size_t {
  kClusterColumn,
  kNodeColumn,
  kNamespaceColumn,
  kWorkloadKindColumn,
  kWorkloadColumn,
  kPodColumn,
  kContainerColumn,
  kGpuModelColumn,
  kFixedColumns,
};
constexpr std::array<DimensionKind, kFixedColumns> kFixedKinds = {
    DimensionKind::kCluster,      DimensionKind::kNode,     DimensionKind::kNamespace,
    DimensionKind::kWorkloadKind, DimensionKind::kWorkload, DimensionKind::kPod,
    DimensionKind::kContainer,    DimensionKind::kGpuModel,
};

// A value that names something: not empty and not one of the report's placeholders.
bool Named(std::string_view v) { return !v.empty() && v != kIdleValue && v != kUnallocatedValue; }

}  // namespace

std::string OpenCostControllerKind(std::string_view workload_kind) {
  if (!Named(workload_kind)) return "";
  std::string kind = ToLower(workload_kind);
  if (kind == "pod") return "";
  if (kind == "cronjob") return "job";
  return kind;
}

OpenCostGrouping OpenCostGrouping::Parse(std::string_view aggregate) {
  OpenCostGrouping g;
  for (const DimensionKind kind : kFixedKinds) g.dims_.push_back(Dimension{kind, ""});
  const auto add = [&g](Kind kind, std::string key = "") {
    g.by_.push_back(Aggregation{kind, std::move(key), 0});
  };
  for (const std::string& item : SplitList(aggregate)) {
    const std::string name = ToLower(item);
    if (name.starts_with("label:") && item.size() > 6) {
      const std::string key = item.substr(6);
      Aggregation a{Kind::kLabel, key, 0};
      for (size_t i = kFixedColumns; i < g.dims_.size(); ++i) {
        if (g.dims_[i].kind == DimensionKind::kLabel && g.dims_[i].label_key == key) a.column = i;
      }
      if (a.column == 0) {
        a.column = g.dims_.size();
        g.dims_.push_back(Dimension{DimensionKind::kLabel, key});
      }
      g.by_.push_back(std::move(a));
    } else if (name.starts_with("annotation:") || name == "service" || name == "services") {
      add(Kind::kUnknown);
    } else if (name == "cluster") {
      add(Kind::kCluster);
    } else if (name == "node") {
      add(Kind::kNode);
    } else if (name == "namespace") {
      add(Kind::kNamespace);
    } else if (name == "controllerkind") {
      add(Kind::kControllerKind);
    } else if (name == "controller") {
      add(Kind::kController);
    } else if (name == "pod") {
      add(Kind::kPod);
    } else if (name == "container") {
      add(Kind::kContainer);
    } else if (name == "deployment" || name == "statefulset" || name == "daemonset" ||
               name == "job") {
      add(Kind::kWorkloadOfKind, name);
    } else if (name == "all") {
      add(Kind::kAll);
    } else if (name == "team") {
      if (g.team_column_ == 0) {
        g.team_column_ = g.dims_.size();
        g.dims_.push_back(Dimension{DimensionKind::kTeam, ""});
      }
      add(Kind::kTeam);
    }
    // Anything else is dropped, as OpenCost drops an aggregation it does not know.
  }
  if (g.by_.empty()) {
    for (const Kind k :
         {Kind::kCluster, Kind::kNode, Kind::kNamespace, Kind::kPod, Kind::kContainer}) {
      add(k);
    }
  }
  return g;
}

OpenCostGrouping::Allocation OpenCostGrouping::AllocationOf(std::span<const std::string> values,
                                                            bool is_idle) const {
  Allocation out;
  const std::string kind = OpenCostControllerKind(values[kWorkloadKindColumn]);
  const std::string& workload = values[kWorkloadColumn];
  const std::string controller = kind.empty() || !Named(workload) ? "" : kind + ":" + workload;

  // Properties: what the row names, so that merged rows keep the ones they share.
  const auto property = [&out](const char* name, std::string_view v) {
    if (Named(v)) out.properties[name] = std::string(v);
  };
  property("cluster", values[kClusterColumn]);
  property("node", values[kNodeColumn]);
  property("namespace", values[kNamespaceColumn]);
  property("controllerKind", kind);
  property("controller", controller);
  property("pod", values[kPodColumn]);
  property("container", values[kContainerColumn]);
  if (team_column_ != 0) property("team", values[team_column_]);
  if (Named(values[kGpuModelColumn])) out.gpu_model = values[kGpuModelColumn];

  // The name: one part per aggregation; idle keeps only the parts that describe capacity.
  std::vector<std::string> parts;
  const auto part = [&parts](std::string_view v) {
    parts.emplace_back(v.empty() ? kUnallocatedValue : v);
  };
  const auto or_unallocated = [](const std::string& v) -> std::string_view {
    return v.empty() ? kUnallocatedValue : std::string_view(v);
  };
  for (const Aggregation& a : by_) {
    switch (a.kind) {
      case Kind::kCluster:
        part(values[kClusterColumn]);
        break;
      case Kind::kNode:
        part(values[kNodeColumn]);
        break;
      case Kind::kLabel: {
        const std::string& v = values[a.column];
        if (Named(v)) out.properties["label:" + a.key] = v;
        if (!is_idle || v != kIdleValue) part(v);
        break;
      }
      default:
        if (is_idle) break;  // holders' aggregations: idle capacity has none
        switch (a.kind) {
          case Kind::kNamespace:
            part(values[kNamespaceColumn]);
            break;
          case Kind::kControllerKind:
            part(or_unallocated(kind));
            break;
          case Kind::kController:
            part(or_unallocated(controller));
            break;
          case Kind::kPod:
            part(values[kPodColumn]);
            break;
          case Kind::kContainer:
            part(values[kContainerColumn]);
            break;
          case Kind::kTeam:
            part(values[team_column_]);
            break;
          case Kind::kWorkloadOfKind:
            part(kind == a.key && Named(workload) ? std::string_view(workload) : kUnallocatedValue);
            break;
          case Kind::kAll:
            // OpenCost aggregates `all` by no property: one allocation whose name is "".
            break;
          default:
            part(kUnallocatedValue);
            break;
        }
    }
  }
  if (is_idle) parts.emplace_back(kIdleValue);
  out.name = Join(parts, "/");
  return out;
}

}  // namespace gpucost::serve
