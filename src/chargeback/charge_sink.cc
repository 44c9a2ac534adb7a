#include "chargeback/charge_sink.h"

#include <algorithm>
#include <cmath>

namespace gpucost::chargeback {

ChargeSink::ChargeSink(const Inventory& inventory, Window window, Duration step,
                       StatementBuilder& builder)
    : inventory_(&inventory), window_(window), step_(step), builder_(&builder) {}

StatementBuilder::Key ChargeSink::KeyFor(UnitIndex unit, HolderIndex holder) {
  const uint64_t pair = (static_cast<uint64_t>(unit) << 32) | holder;
  if (auto it = keys_.find(pair); it != keys_.end()) return it->second;
  const Holder& h = inventory_->holders[holder];
  ChargeLabels labels;
  labels.team = h.team.empty() ? h.namespace_name : h.team;
  labels.namespace_name = h.namespace_name;
  labels.workload = h.workload.empty() ? h.pod : h.workload;
  labels.workload_kind = h.workload_kind;
  if (unit < inventory_->units.size()) {
    const GpuUnit& u = inventory_->units[unit];
    labels.gpu_model = u.gpu_model;
    labels.unit_kind = u.kind();
    if (u.node < inventory_->nodes.size()) {
      const Node& n = inventory_->nodes[u.node];
      if (labels.gpu_model.empty()) labels.gpu_model = n.gpu_model;
      labels.capacity_type = n.capacity_type;
    }
  }
  const StatementBuilder::Key key = builder_->Intern(labels);
  keys_.emplace(pair, key);
  return key;
}

void ChargeSink::Consume(std::span<const CostRecord> records) {
  for (const CostRecord& r : records) {
    if (r.is_idle()) continue;
    ChargeAmounts a;
    a.start = window_.start + step_ * r.step;
    a.gpu_hours = r.gpu_hours;
    a.allocated_usd = r.price_known ? r.allocated_usd : NAN;
    a.effective_usd = r.price_known ? r.effective_usd : NAN;
    const bool measured =
        r.unmeasured_gpu_hours < r.gpu_hours && std::isfinite(r.activity_gpu_hours);
    a.used_gpu_hours = measured ? std::min(r.gpu_hours, r.activity_gpu_hours) : NAN;
    builder_->Add(KeyFor(r.unit, r.holder), a);
  }
}

}  // namespace gpucost::chargeback
