#include "chargeback/charge_sink.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "chargeback_test_util.h"

namespace gpucost::chargeback {
namespace {

// One spot A100 node (unit 0) and one unknown-capacity H100 node (unit 1); holders: a pod of
// team ml and a Slurm job of account physics.
Inventory TwoNodes() {
  Inventory inv;
  Node a;
  a.name = "a100";
  a.physical_gpus = 1;
  a.gpu_model = "NVIDIA A100-SXM4-80GB";
  a.capacity_type = "spot";
  Node h = a;
  h.name = "h100";
  h.gpu_model = "NVIDIA H100 80GB HBM3";
  h.capacity_type = "";
  inv.nodes = {a, h};
  GpuUnit u0;
  u0.node = 0;
  u0.gpu_model = a.gpu_model;
  GpuUnit u1;
  u1.node = 1;  // no model on the unit: the node's
  inv.units = {u0, u1};
  Holder pod;
  pod.namespace_name = "ml-train";
  pod.pod = "train-0";
  pod.workload = "train";
  pod.workload_kind = "Job";
  pod.team = "ml";
  Holder job;
  job.kind = HolderKind::kSlurmJob;
  job.namespace_name = "physics";
  job.pod = "501";
  job.workload = "lattice";
  job.workload_kind = "SlurmJob";
  job.team = "physics";
  inv.holders = {pod, job};
  return inv;
}

CostRecord Record(int64_t step, UnitIndex unit, HolderIndex holder, double hours, double usd,
                  double u) {
  CostRecord r;
  r.step = step;
  r.unit = unit;
  r.holder = holder;
  r.gpu_hours = hours;
  r.price_known = std::isfinite(usd);
  r.allocated_usd = usd;
  if (std::isfinite(u)) {
    r.activity_gpu_hours = hours * u;
    r.effective_usd = usd * u;
  } else {
    r.unmeasured_gpu_hours = hours;
  }
  return r;
}

TEST(ChargeSink, RecordsBecomeChargesOfTheirHoldersTeams) {
  const Inventory inv = TwoNodes();
  StatementBuilder builder(October(), {});
  ChargeSink sink(inv, October().window, std::chrono::hours(1), builder);
  CostRecord idle = Record(0, 0, kNoIndex, 5, 10, NAN);
  const std::vector<CostRecord> records = {
      Record(0, 0, 0, 1, 2.0, 0.5),    // ml on the A100, day 1
      Record(30, 0, 0, 1, 2.0, 0.01),  // ml, day 2, idle
      Record(1, 1, 1, 2, NAN, 0.9),    // physics on the unpriced H100
      idle,                            // nobody's: skipped
  };
  sink.Consume(records);
  auto set = builder.Finish({});
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_EQ(set->statements.size(), 2u);
  const Statement& ml = set->statements[0];
  EXPECT_EQ(ml.team, "ml");
  EXPECT_DOUBLE_EQ(ml.totals.gpu_hours, 2);
  EXPECT_DOUBLE_EQ(ml.totals.allocated_usd, 4);
  EXPECT_DOUBLE_EQ(ml.totals.idle_gpu_hours, 1);
  EXPECT_DOUBLE_EQ(ml.totals.spot_ratio(), 1);
  EXPECT_DOUBLE_EQ(ml.days[1].totals.gpu_hours, 1);  // step 30 of 1 h: 2026-10-02T06:00Z
  const Statement& physics = set->statements[1];
  EXPECT_EQ(physics.team, "physics");
  ASSERT_EQ(physics.lines.size(), 1u);
  EXPECT_EQ(physics.lines[0].gpu_model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(physics.lines[0].capacity_type, "");
  EXPECT_FALSE(physics.lines[0].priced());
  EXPECT_EQ(physics.workloads[0].workload_kind, "SlurmJob");
  EXPECT_NEAR(physics.totals.efficiency(), 0.9, 1e-12);  // from GPU-hours: no price
}

}  // namespace
}  // namespace gpucost::chargeback
