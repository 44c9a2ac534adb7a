// Internal to the report module: what a FOCUS row says of its node, its price and its holder
// beyond the money (focus_writer.cc writes the rows): the host provider, the SKU, the pricing
// category, the billing and sub accounts, and the tags (docs/focus.md).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/holder.h"
#include "model/inventory.h"
#include "model/price.h"

namespace gpucost {

// A JSON string of `s`; what is not UTF-8 is written as U+FFFD, as in every other format.
std::string JsonString(std::string_view s);

// The cloud behind a kube_node_info provider ID ("aws:///us-east-1a/i-0abc"), else `fallback`.
std::string HostProvider(const Node& node, std::string_view fallback);

// The instance type, else "gpu/<model>".
std::string SkuId(const Node& node);

// FOCUS PricingCategory of a price of this source on capacity of this type.
std::string_view PricingCategory(PriceSource s, std::string_view capacity_type);

// The BillingAccount* and SubAccount* columns.
struct Accounts {
  std::string billing_id, billing_name, billing_type;
  std::string sub_id, sub_name, sub_type;
};

// A bill names the payer account (BillingAccountId) and the member account that ran the instance
// (SubAccountId), as the cloud's own FOCUS data does; without a bill the cluster stands for the
// account, and there is no sub account.
Accounts AccountsOf(const PricePeriod& price, const std::string& cluster);

// The node's tags: gpucost's own under "gpucost/", its labels under "node-label/"; values are
// serialized JSON strings.
std::vector<std::pair<std::string, std::string>> NodeTags(const Node& node);

// The holder's tags, then its labels ("pod-label/", or "slurm/" for a Slurm job), leaving out the
// keys `node_tags` already has.
std::vector<std::pair<std::string, std::string>> HolderTags(
    const Holder& h, const std::vector<std::pair<std::string, std::string>>& node_tags);

}  // namespace gpucost
