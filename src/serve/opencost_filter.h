// OpenCost's allocation filter language (v2), for the `filter` parameter of serve's /allocation:
//
//   namespace:"team-a","team-b"+label[app]:"trainer"
//   (controllerKind:"Job"|team~:"ml")+node!:"gpu-7"
//
// A comparison is FIELD OP "VALUE"[,"VALUE"...]; `+` is and, `|` is or, parentheses group, and
// one group uses one of them (a + b | c is an error, as in OpenCost). Operators: `:` equals,
// `!:` differs, `~:` contains, `!~:`, `<~:` starts with, `!<~:`, `~>:` ends with, `!~>:`. Several
// values after a positive operator match any of them; after a negated one, none of them.
// Fields: cluster, node, namespace, controllerKind (its values in any case: "job" matches a Job's
// and a CronJob's pods), controllerName, pod, container, team (gpucost's), label[KEY] (the pod
// label as kept, or its Prometheus-sanitized name); services and annotation[KEY] are accepted
// as OpenCost's, but gpucost keeps neither, so no pod has a service and every annotation is
// empty. Records of capacity nobody held have only a cluster and a node: any other field does
// not match them.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "model/cost_record.h"
#include "model/inventory.h"

namespace gpucost::serve {

class AllocationFilter {
 public:
  // InvalidArgument naming the position and what was expected. An empty text matches everything.
  static Result<AllocationFilter> Parse(std::string_view text);

  bool Matches(const Inventory& inventory, const CostRecord& record) const;

  struct Expr;  // the parsed expression

 private:
  std::shared_ptr<const Expr> root_;  // null: everything
};

}  // namespace gpucost::serve
