#include "report/report.h"

#include "core/strings.h"

namespace gpucost {

std::string_view IdlePolicyName(IdlePolicy p) {
  switch (p) {
    case IdlePolicy::kSeparate:
      return "separate";
    case IdlePolicy::kProportional:
      return "proportional";
    case IdlePolicy::kEven:
      return "even";
  }
  return "separate";
}

std::string_view IdleScopeName(IdleScope s) {
  switch (s) {
    case IdleScope::kCluster:
      return "cluster";
    case IdleScope::kNode:
      return "node";
  }
  return "cluster";
}

Result<IdlePolicy> ParseIdlePolicy(std::string_view name) {
  for (IdlePolicy p : {IdlePolicy::kSeparate, IdlePolicy::kProportional, IdlePolicy::kEven}) {
    if (IdlePolicyName(p) == name) return p;
  }
  return Status::InvalidArgument(
      StrCat("unknown idle policy \"", name, "\" (expected separate, proportional, even)"));
}

Result<IdleScope> ParseIdleScope(std::string_view name) {
  for (IdleScope s : {IdleScope::kCluster, IdleScope::kNode}) {
    if (IdleScopeName(s) == name) return s;
  }
  return Status::InvalidArgument(
      StrCat("unknown idle scope \"", name, "\" (expected cluster, node)"));
}

}  // namespace gpucost
