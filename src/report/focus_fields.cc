// What a FOCUS row says of its node, its price and its holder beyond the money (focus_fields.h).
#include "report/focus_fields.h"

#include <nlohmann/json.hpp>
#include <set>

#include "core/strings.h"

namespace gpucost {
namespace {

constexpr std::string_view kNodeLabelPrefix = "node-label/";
constexpr std::string_view kPodLabelPrefix = "pod-label/";

}  // namespace

// What is not UTF-8 is written as U+FFFD, as in every other format (core/utf8.h).
std::string JsonString(std::string_view s) {
  return nlohmann::json(std::string(s))
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The cloud behind a kube_node_info provider ID ("aws:///us-east-1a/i-0abc").
std::string HostProvider(const Node& node, std::string_view fallback) {
  const std::string_view id = node.provider_id;
  const std::string_view scheme = id.substr(0, id.find("://"));
  if (id.find("://") != std::string_view::npos) {
    if (scheme == "aws") return "AWS";
    if (scheme == "gce") return "Google Cloud";
    if (scheme == "azure") return "Microsoft";
    if (scheme == "oci") return "Oracle";
  }
  return std::string(fallback);
}

std::string SkuId(const Node& node) {
  if (!node.instance_type.empty()) return node.instance_type;
  return StrCat("gpu/", node.gpu_model.empty() ? std::string("unknown") : node.gpu_model);
}

// Spot capacity is priced dynamically whatever source gave its price (the catalog's spot price,
// a rule for spot nodes); commitments and bills keep their own categories.
std::string_view PricingCategory(PriceSource s, std::string_view capacity_type) {
  if (capacity_type == "spot" && s != PriceSource::kCommitment && s != PriceSource::kBill) {
    return "Dynamic";
  }
  switch (s) {
    case PriceSource::kSpot:
      return "Dynamic";
    case PriceSource::kCommitment:
      return "Committed";
    case PriceSource::kBill:
      return "Other";  // a bill's rate blends whatever pricing models applied
    default:
      return "Standard";
  }
}

// A bill names the payer account (BillingAccountId) and the member account that ran the instance
// (SubAccountId), as the cloud's own FOCUS data does; without a bill the cluster stands for the
// account, and there is no sub account.
Accounts AccountsOf(const PricePeriod& price, const std::string& cluster) {
  Accounts a;
  if (price.source == PriceSource::kBill &&
      (!price.payer_account.empty() || !price.usage_account.empty())) {
    const bool payer = !price.payer_account.empty();
    a.billing_id = payer ? price.payer_account : price.usage_account;
    const std::string& name = payer ? price.payer_account_name : price.usage_account_name;
    a.billing_name = name.empty() ? a.billing_id : name;
    a.billing_type = "Billing Account";
    if (payer && !price.usage_account.empty()) {
      a.sub_id = price.usage_account;
      a.sub_name = price.usage_account_name.empty() ? a.sub_id : price.usage_account_name;
      a.sub_type = "Linked Account";
    }
    return a;
  }
  a.billing_id = a.billing_name = cluster;
  a.billing_type = "Cluster";
  return a;
}

// Generator-defined tags carry the "gpucost/" prefix (docs/focus.md "Tags").
std::vector<std::pair<std::string, std::string>> NodeTags(const Node& node) {
  std::vector<std::pair<std::string, std::string>> kv;
  const auto add = [&](std::string_view k, std::string_view v) {
    if (!v.empty()) kv.emplace_back(StrCat("gpucost/", k), JsonString(v));
  };
  add("capacity-type", node.capacity_type);
  add("cluster", node.cluster);
  add("gpu-model", node.gpu_model);
  add("instance-type", node.instance_type);
  add("node", node.name);
  // Node labels: one of gpucost's two user-defined tag schemes, so under its own prefix.
  for (const Label& l : node.labels) {
    if (!l.value.empty()) kv.emplace_back(StrCat(kNodeLabelPrefix, l.name), JsonString(l.value));
  }
  return kv;
}

std::vector<std::pair<std::string, std::string>> HolderTags(
    const Holder& h, const std::vector<std::pair<std::string, std::string>>& node_tags) {
  std::vector<std::pair<std::string, std::string>> kv;
  std::set<std::string> seen;
  for (const auto& [k, v] : node_tags) seen.insert(k);
  const auto add = [&](std::string key, std::string_view v) {
    if (v.empty() || !seen.insert(key).second) return;
    kv.emplace_back(std::move(key), JsonString(v));
  };
  const bool slurm = h.kind == HolderKind::kSlurmJob;
  if (slurm) {
    add("gpucost/job-id", h.pod);
  } else {
    add("gpucost/container", h.container);
    add("gpucost/namespace", h.namespace_name);
    add("gpucost/pod", h.pod);
  }
  add("gpucost/team", h.team);
  add("gpucost/workload", h.workload);
  add("gpucost/workload-kind", h.workload_kind);
  // Pod labels are the other user-defined tag scheme: with two, FOCUS 1.3 requires a prefix on
  // every user-defined tag in AllocatedTags, so they are under "pod-label/". Slurm job fields are
  // generator defined, under "slurm/".
  for (const Label& l : h.labels) {
    add(StrCat(slurm ? std::string_view("slurm/") : kPodLabelPrefix, l.name), l.value);
  }
  return kv;
}

}  // namespace gpucost
