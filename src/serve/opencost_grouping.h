// OpenCost's `aggregate` parameter for serve's /allocation: the aggregations OpenCost accepts,
// the report dimensions gpucost computes them from, and the allocation (name and properties) a
// report row at those dimensions belongs to. Rows are computed finer than asked (cluster, node,
// namespace, workload, pod, container, GPU model and the labels asked for), so that an
// allocation's properties are those all its rows share, as OpenCost keeps them. Stateless and
// thread-safe.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/dimension.h"

namespace gpucost::serve {

// OpenCost's controllerKind of a gpucost workload kind: lowercase, CronJob's pods under "job"
// (OpenCost names a CronJob's pods by their Job), and "" for a pod without a controller.
std::string OpenCostControllerKind(std::string_view workload_kind);

class OpenCostGrouping {
 public:
  // The comma-separated `aggregate` value, names case-insensitive: cluster, node, namespace,
  // controllerKind, controller, pod, container, service(s), daemonset, deployment, job,
  // statefulset, label:<key>, annotation:<key>, all, and gpucost's team. Unknown names are
  // dropped, as OpenCost drops them; none left: cluster, node, namespace, pod, container.
  static OpenCostGrouping Parse(std::string_view aggregate);

  // The report dimensions rows are computed at.
  const std::vector<Dimension>& dimensions() const { return dims_; }

  struct Allocation {
    std::string name;  // the values asked for joined with "/"; idle ends in "/__idle__"
    // cluster, node, namespace, controllerKind, controller, pod, container, team, and
    // "label:KEY" for the labels asked for: only those the row has a value for.
    std::map<std::string, std::string> properties;
    std::string gpu_model;  // "" when unknown
  };
  // The allocation of a report row at dimensions() (`values` one per dimension).
  Allocation AllocationOf(std::span<const std::string> values, bool is_idle) const;

 private:
  enum class Kind : uint8_t {
    kCluster,
    kNode,
    kNamespace,
    kControllerKind,
    kController,
    kPod,
    kContainer,
    kTeam,
    kLabel,
    kWorkloadOfKind,  // deployment, statefulset, ...: the workload when it is of that kind
    kUnknown,         // services and annotations: gpucost knows neither
    kAll,
  };
  struct Aggregation {
    Kind kind = Kind::kNamespace;
    std::string key;    // kLabel: the label; kWorkloadOfKind: the kind, lowercase
    size_t column = 0;  // kLabel: its column in dims_
  };

  std::vector<Aggregation> by_;
  std::vector<Dimension> dims_;
  size_t team_column_ = 0;  // 0: team not asked for
};

}  // namespace gpucost::serve
