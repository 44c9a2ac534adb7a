// The FOCUS export on hand-made timelines through the real engine: a window across price
// changes (a commitment starting mid-day, a price cut at a month start, a spot node), a step
// grid that is not aligned with UTC midnight, and the validator's own ability to fail.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/money.h"
#include "core/strings.h"
#include "focus/focus_validator.h"
#include "pipeline/report_pipeline.h"

namespace gpucost {
namespace {

using focus_test::Validate;

Instant At(const char* rfc3339) { return *ParseInstant(rfc3339); }

Node MakeNode(std::string name, int gpus, std::string instance_type, std::string capacity_type,
              std::string provider_id) {
  Node n;
  n.cluster = "prod";
  n.name = std::move(name);
  n.physical_gpus = gpus;
  n.gpu_model = "NVIDIA A100-SXM4-40GB";
  n.instance_type = std::move(instance_type);
  n.capacity_type = std::move(capacity_type);
  n.region = "us-east-1";
  n.zone = "us-east-1a";
  n.provider_id = std::move(provider_id);
  n.labels = LabelSet{{"pool", "gpu-a"}};
  return n;
}

void AddUnits(LoadedTimeline& t, NodeIndex node, int count) {
  for (int i = 0; i < count; ++i) {
    GpuUnit u;
    u.node = node;
    u.gpu_uuid = StrCat(t.inventory.nodes[node].name, "-gpu", i);
    u.gpu_model = t.inventory.nodes[node].gpu_model;
    u.resource = "nvidia.com/gpu";
    t.inventory.units.push_back(u);
  }
}

HolderIndex AddHolder(LoadedTimeline& t, std::string ns, std::string pod, std::string team) {
  Holder h;
  h.cluster = "prod";
  h.namespace_name = std::move(ns);
  h.pod = std::move(pod);
  h.container = "main";
  h.pod_uid = StrCat("uid-", h.pod);
  h.workload = h.pod.substr(0, h.pod.find('-'));
  h.workload_kind = "StatefulSet";
  h.team = std::move(team);
  // A pod label that looks like one of gpucost's own tags stays a pod label (under its prefix).
  h.labels = LabelSet{{"app", h.workload}, {"gpucost/spoof", "1"}};
  t.inventory.holders.push_back(h);
  return static_cast<HolderIndex>(t.inventory.holders.size() - 1);
}

void Hold(LoadedTimeline& t, HolderIndex h, NodeIndex n, UnitIndex u, Instant from, Instant to) {
  Holding x;
  x.holder = h;
  x.node = n;
  x.interval = {from, to};
  x.units = {u};
  t.inventory.holdings.push_back(x);
}

PricePeriod Price(Instant from, Instant to, double usd, PriceSource source, double list,
                  std::string why) {
  PricePeriod p;
  p.interval = {from, to};
  p.usd_per_gpu_hour = usd;
  p.source = source;
  p.effective_from = from;
  p.list_usd_per_gpu_hour = list;
  p.why = std::move(why);
  return p;
}

// n1 (2 GPUs, on demand): $4.10 from the catalog until 18:00, then a $3.00 commitment rate
// (list $4.10) until the June price cut to $2.30 at 2025-06-01T00:00Z. n2 (1 GPU, spot): $1.00,
// list $1.50, all window. Pods: a/train-0 on n1 GPU 0 all window; b/infer-0 on n1 GPU 1 from
// 15:00 to 03:00; c/nb-0 on n2 from 12:00 to 20:00.
struct PriceChangeCase {
  LoadedTimeline timeline;
  PriceFn price;
};

PriceChangeCase MakePriceChangeCase() {
  PriceChangeCase c;
  LoadedTimeline& t = c.timeline;
  t.window = {At("2025-05-31T12:00:00Z"), At("2025-06-01T12:00:00Z")};
  t.span = t.window;
  t.inventory.nodes.push_back(
      MakeNode("n1", 2, "p4d.24xlarge", "on_demand", "aws:///us-east-1a/i-0aaa"));
  t.inventory.nodes.push_back(MakeNode("n2", 1, "p4de.24xlarge", "spot", "aws:///us-east-1a/i-0bbb"));
  AddUnits(t, 0, 2);
  AddUnits(t, 1, 1);
  const HolderIndex train = AddHolder(t, "a", "train-0", "x");
  const HolderIndex infer = AddHolder(t, "b", "infer-0", "y");
  const HolderIndex nb = AddHolder(t, "c", "nb-0", "z");
  Hold(t, train, 0, 0, t.window.start, t.window.end);
  Hold(t, infer, 0, 1, At("2025-05-31T15:00:00Z"), At("2025-06-01T03:00:00Z"));
  Hold(t, nb, 1, 2, At("2025-05-31T12:00:00Z"), At("2025-05-31T20:00:00Z"));
  const Instant far_past = At("2025-01-01T00:00:00Z"), far_future = At("2026-01-01T00:00:00Z");
  c.price = [=](const Node& node, Window w) {
    std::vector<PricePeriod> out;
    if (node.name == "n1") {
      out = {Price(far_past, At("2025-05-31T18:00:00Z"), 4.10, PriceSource::kCatalog, 4.10,
                   "catalog p4d.24xlarge us-east-1"),
             Price(At("2025-05-31T18:00:00Z"), At("2025-06-01T00:00:00Z"), 3.00,
                   PriceSource::kCommitment, 4.10, "savings plan sp-123"),
             Price(At("2025-06-01T00:00:00Z"), far_future, 2.30, PriceSource::kCatalog, 2.30,
                   "catalog p4d.24xlarge us-east-1 after the June 2025 cut")};
    } else {
      out = {Price(far_past, far_future, 1.00, PriceSource::kSpot, 1.50, "spot p4de.24xlarge")};
    }
    for (PricePeriod& p : out) {
      p.interval.start = std::max(p.interval.start, w.start);
      p.interval.end = std::min(p.interval.end, w.end);
    }
    return out;
  };
  return c;
}

std::string ExportCsv(const LoadedTimeline& t, const PriceFn& price, ReportSettings s,
                      bool per_step = false, const std::string& provider = "gpucost",
                      FocusVersion version = FocusVersion::k1_3) {
  auto run = RunFocusExport(t, price, s, per_step, provider, version);
  EXPECT_TRUE(run.ok()) << run.status().ToString();
  if (!run.ok()) return "";
  std::ostringstream out;
  WriteFocusCsv(run->table, out);
  EXPECT_NEAR(run->table.effective_cost_usd, run->run.report.totals.cost_usd, 1e-9);
  return out.str();
}

ReportSettings Settings(Window w) {
  ReportSettings s;
  s.window = w;
  s.by = {Dimension{DimensionKind::kNamespace, ""}};
  return s;
}

struct Key {
  std::string start, resource, who;
  auto operator<=>(const Key&) const = default;
};

TEST(FocusExport, WindowAcrossPriceChangesIsPricedOnEachSide) {
  const PriceChangeCase c = MakePriceChangeCase();
  const std::string csv = ExportCsv(c.timeline, c.price, Settings(c.timeline.window));
  const auto rep = Validate(csv);
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& t = *rep.table;

  std::map<Key, size_t> rows;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const Key k{t.Str(i, "ChargePeriodStart"), t.Str(i, "ResourceName"),
                t.At(i, "x_Namespace").value_or("idle")};
    EXPECT_TRUE(rows.emplace(k, i).second) << "duplicate row " << k.start << " " << k.who;
  }
  const auto expect = [&](const char* start, const char* end, const char* node, const char* who,
                          double hours, double price, double list, const char* category) {
    auto it = rows.find(Key{start, node, who});
    ASSERT_NE(it, rows.end()) << start << " " << node << " " << who;
    const size_t r = it->second;
    EXPECT_EQ(t.Str(r, "ChargePeriodEnd"), end);
    EXPECT_NEAR(t.Num(r, "PricingQuantity"), hours, 1e-9) << start << " " << who;
    EXPECT_NEAR(t.Num(r, "ConsumedQuantity"), hours, 1e-9);
    EXPECT_NEAR(t.Num(r, "EffectiveCost"), hours * price, 1e-9) << start << " " << who;
    EXPECT_NEAR(t.Num(r, "BilledCost"), hours * price, 1e-9);
    EXPECT_NEAR(t.Num(r, "ListCost"), hours * list, 1e-9);
    EXPECT_EQ(t.Num(r, "ListUnitPrice"), list);
    EXPECT_EQ(t.Str(r, "PricingCategory"), category);
  };
  // n1 before the commitment: catalog $4.10.
  expect("2025-05-31T12:00:00Z", "2025-05-31T18:00:00Z", "n1", "a", 6, 4.10, 4.10, "Standard");
  expect("2025-05-31T12:00:00Z", "2025-05-31T18:00:00Z", "n1", "b", 3, 4.10, 4.10, "Standard");
  expect("2025-05-31T12:00:00Z", "2025-05-31T18:00:00Z", "n1", "idle", 3, 4.10, 4.10, "Standard");
  // n1 under the commitment until midnight: $3.00, list $4.10; both GPUs held, no idle.
  expect("2025-05-31T18:00:00Z", "2025-06-01T00:00:00Z", "n1", "a", 6, 3.00, 4.10, "Committed");
  expect("2025-05-31T18:00:00Z", "2025-06-01T00:00:00Z", "n1", "b", 6, 3.00, 4.10, "Committed");
  EXPECT_EQ(rows.count(Key{"2025-05-31T18:00:00Z", "n1", "idle"}), 0u);
  // n1 after the June cut: $2.30.
  expect("2025-06-01T00:00:00Z", "2025-06-01T12:00:00Z", "n1", "a", 12, 2.30, 2.30, "Standard");
  expect("2025-06-01T00:00:00Z", "2025-06-01T12:00:00Z", "n1", "b", 3, 2.30, 2.30, "Standard");
  expect("2025-06-01T00:00:00Z", "2025-06-01T12:00:00Z", "n1", "idle", 9, 2.30, 2.30, "Standard");
  // n2 on spot, one day period each side of midnight.
  expect("2025-05-31T12:00:00Z", "2025-06-01T00:00:00Z", "n2", "c", 8, 1.00, 1.50, "Dynamic");
  expect("2025-05-31T12:00:00Z", "2025-06-01T00:00:00Z", "n2", "idle", 4, 1.00, 1.50, "Dynamic");
  expect("2025-06-01T00:00:00Z", "2025-06-01T12:00:00Z", "n2", "idle", 12, 1.00, 1.50, "Dynamic");
  EXPECT_EQ(rows.size(), 11u);

  // The committed rows name the commitment; their contracted cost is the list cost.
  const size_t committed = rows.at(Key{"2025-05-31T18:00:00Z", "n1", "a"});
  EXPECT_EQ(t.Str(committed, "CommitmentDiscountId"), "savings plan sp-123");
  EXPECT_EQ(t.Str(committed, "CommitmentDiscountStatus"), "Used");
  EXPECT_NEAR(t.Num(committed, "ContractedCost"), 6 * 4.10, 1e-9);
  EXPECT_EQ(t.Str(committed, "x_PriceSource"), "commitment");
  // Billing periods are calendar months.
  EXPECT_EQ(t.Str(committed, "BillingPeriodStart"), "2025-05-01T00:00:00Z");
  EXPECT_EQ(t.Str(committed, "BillingPeriodEnd"), "2025-06-01T00:00:00Z");
  const size_t june = rows.at(Key{"2025-06-01T00:00:00Z", "n1", "a"});
  EXPECT_EQ(t.Str(june, "BillingPeriodStart"), "2025-06-01T00:00:00Z");
  EXPECT_EQ(t.Str(june, "BillingPeriodEnd"), "2025-07-01T00:00:00Z");
  EXPECT_EQ(t.Str(june, "ResourceId"), "aws:///us-east-1a/i-0aaa");
  EXPECT_EQ(t.Str(june, "HostProviderName"), "AWS");
  EXPECT_EQ(t.Str(june, "SkuId"), "p4d.24xlarge");
  EXPECT_EQ(t.Str(june, "RegionId"), "us-east-1");
  EXPECT_EQ(t.Str(june, "AllocatedResourceId"), "uid-train-0/main");
  const auto tags = nlohmann::json::parse(t.Str(june, "AllocatedTags"));
  EXPECT_EQ(tags["gpucost/team"], "x");
  EXPECT_EQ(tags["gpucost/namespace"], "a");
  EXPECT_EQ(tags["gpucost/workload"], "train");
  // Pod labels and node labels are two user-defined tag schemes: each under its prefix.
  EXPECT_EQ(tags["pod-label/app"], "train");
  EXPECT_FALSE(tags.contains("app"));
  EXPECT_EQ(tags["pod-label/gpucost/spoof"], "1");
  EXPECT_FALSE(tags.contains("gpucost/spoof"));
  const auto node_tags = nlohmann::json::parse(t.Str(june, "Tags"));
  EXPECT_EQ(node_tags["node-label/pool"], "gpu-a");
  EXPECT_EQ(node_tags["gpucost/instance-type"], "p4d.24xlarge");
  EXPECT_EQ(node_tags["gpucost/capacity-type"], "on_demand");
  // No usage samples: the utilization-weighted columns are unknown, not zero.
  EXPECT_FALSE(t.At(june, "x_UtilizedCost").has_value());
  EXPECT_FALSE(t.At(june, "x_Utilization").has_value());
  EXPECT_NEAR(t.Num(june, "x_UnmeasuredGpuHours"), 12, 1e-9);

  // Σ EffectiveCost: 2 GPUs x (6 h x $4.10 + 6 h x $3.00 + 12 h x $2.30) + 24 h x $1.00.
  CompensatedSum sum;
  for (size_t i = 0; i < t.rows.size(); ++i) sum.Add(t.Num(i, "EffectiveCost"));
  EXPECT_NEAR(sum.value(), 2 * (6 * 4.10 + 6 * 3.00 + 12 * 2.30) + 24 * 1.00, 1e-9);
}

// Who sold and hosts the GPUs: the cloud the provider ID names (so a finance tool joins the rows
// to that bill), gpucost where a node has none, --focus-provider's name on every row when given.
// Spot capacity is Dynamic whichever source priced it (here the catalog's spot price).
TEST(FocusExport, ProvidersComeFromTheProviderIdAndSpotCapacityIsDynamic) {
  PriceChangeCase c = MakePriceChangeCase();
  c.timeline.inventory.nodes[1].provider_id = "";  // n2: on premises
  const PriceFn base = c.price;
  const PriceFn catalog_spot = [base](const Node& node, Window w) {
    std::vector<PricePeriod> out = base(node, w);
    if (node.name == "n2") {
      for (PricePeriod& p : out) p.source = PriceSource::kCatalog;
    }
    return out;
  };
  for (const std::string given : {"", "Acme GPU Cloud"}) {
    const std::string csv =
        ExportCsv(c.timeline, catalog_spot, Settings(c.timeline.window), false, given);
    const auto rep = Validate(csv);
    ASSERT_TRUE(rep.ok()) << rep.ToString();
    const focus_test::Table& t = *rep.table;
    size_t n1 = 0, n2 = 0;
    for (size_t i = 0; i < t.rows.size(); ++i) {
      const bool aws = t.Str(i, "ResourceName") == "n1";
      (aws ? n1 : n2) += 1;
      const std::string want = !given.empty() ? given : aws ? "AWS" : "gpucost";
      for (const char* col :
           {"ServiceProviderName", "InvoiceIssuerName", "ProviderName", "PublisherName"}) {
        EXPECT_EQ(t.Str(i, col), want) << col << " row " << i;
      }
      EXPECT_EQ(t.Str(i, "HostProviderName"), aws ? "AWS" : !given.empty() ? given : "gpucost");
      if (!aws) {
        EXPECT_EQ(t.Str(i, "PricingCategory"), "Dynamic") << "spot, priced by the catalog";
      }
    }
    EXPECT_GT(n1, 0u);
    EXPECT_GT(n2, 0u);
  }
}

// A window starting 30 s past a minute: every 60 s step straddles the price change at midnight
// by 30 s, and the charge periods are still cut exactly at midnight.
TEST(FocusExport, StepGridOffMidnightIsSplitAtMidnight) {
  LoadedTimeline t;
  t.window = {At("2025-05-31T23:00:30Z"), At("2025-06-01T01:00:30Z")};
  t.span = t.window;
  t.inventory.nodes.push_back(MakeNode("n1", 1, "", "", ""));
  AddUnits(t, 0, 1);
  Hold(t, AddHolder(t, "a", "train-0", "x"), 0, 0, t.window.start, t.window.end);
  const Instant midnight = At("2025-06-01T00:00:00Z");
  const PriceFn price = [=](const Node&, Window w) {
    return std::vector<PricePeriod>{
        Price(w.start, midnight, 4.0, PriceSource::kRateCard, NAN, "rule 1"),
        Price(midnight, w.end, 2.0, PriceSource::kRateCard, NAN, "rule 2")};
  };
  const auto rep = Validate(ExportCsv(t, price, Settings(t.window)));
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& tab = *rep.table;
  ASSERT_EQ(tab.rows.size(), 2u);
  EXPECT_EQ(tab.Str(0, "ChargePeriodStart"), "2025-05-31T23:00:30Z");
  EXPECT_EQ(tab.Str(0, "ChargePeriodEnd"), "2025-06-01T00:00:00Z");
  EXPECT_EQ(tab.Str(1, "ChargePeriodStart"), "2025-06-01T00:00:00Z");
  EXPECT_EQ(tab.Str(1, "ChargePeriodEnd"), "2025-06-01T01:00:30Z");
  EXPECT_NEAR(tab.Num(0, "PricingQuantity"), 59.5 / 60, 1e-12);
  EXPECT_NEAR(tab.Num(1, "PricingQuantity"), 60.5 / 60, 1e-12);
  EXPECT_NEAR(tab.Num(0, "EffectiveCost"), 4.0 * 59.5 / 60, 1e-12);
  EXPECT_NEAR(tab.Num(1, "EffectiveCost"), 2.0 * 60.5 / 60, 1e-12);
  // No public price: the list price is the price itself; no node ID: cluster/name.
  EXPECT_EQ(tab.Str(0, "ListUnitPrice"), "4");
  EXPECT_EQ(tab.Str(0, "ResourceId"), "prod/n1");
  EXPECT_EQ(tab.Str(0, "HostProviderName"), "gpucost");
  EXPECT_EQ(tab.Str(0, "SkuId"), "gpu/NVIDIA A100-SXM4-40GB");
}

// Even idle sharing within a node: two pods on a 4-GPU node share the two idle GPUs equally.
TEST(FocusExport, EvenIdleSharingKeepsRatiosSummingToOne) {
  LoadedTimeline t;
  t.window = {At("2025-05-31T00:00:00Z"), At("2025-05-31T02:00:00Z")};
  t.span = t.window;
  t.inventory.nodes.push_back(MakeNode("n1", 4, "p4d.24xlarge", "on_demand", ""));
  AddUnits(t, 0, 4);
  Hold(t, AddHolder(t, "a", "big-0", "x"), 0, 0, t.window.start, t.window.end);
  Hold(t, AddHolder(t, "b", "small-0", "y"), 0, 1, t.window.start, At("2025-05-31T01:00:00Z"));
  const PriceFn price = [](const Node&, Window w) {
    return std::vector<PricePeriod>{Price(w.start, w.end, 3.0, PriceSource::kDefault, NAN, "flat")};
  };
  ReportSettings s = Settings(t.window);
  s.idle = {IdlePolicy::kEven, IdleScope::kNode};
  const auto rep = Validate(ExportCsv(t, price, s));
  ASSERT_TRUE(rep.ok()) << rep.ToString();
  const focus_test::Table& tab = *rep.table;
  ASSERT_EQ(tab.rows.size(), 2u);
  // Idle: 2 GPUs x 2 h + 1 GPU x 1 h = 5 GPU-hours, half each.
  for (size_t i = 0; i < 2; ++i) EXPECT_NEAR(tab.Num(i, "x_IdleCost"), 2.5 * 3.0, 1e-12);
  EXPECT_NEAR(tab.Num(0, "PricingQuantity"), 2 + 2.5, 1e-12);  // a/big-0
  EXPECT_NEAR(tab.Num(1, "PricingQuantity"), 1 + 2.5, 1e-12);  // b/small-0
}

// The validator fails on what the spec forbids: each mutation of a valid export is caught.
// FOCUS 1.4 is the same charges with 1.4's columns: no ProviderName/PublisherName, and
// CommitmentProgramEligibilityDetails and InvoiceDetailId. Each file passes its own version's
// validator and fails the other's; every column they share is the same, cell by cell.
TEST(FocusExport, VersionsCarryTheSameChargesInTheirOwnColumns) {
  const PriceChangeCase c = MakePriceChangeCase();
  const ReportSettings s = Settings(c.timeline.window);
  const std::string v13 = ExportCsv(c.timeline, c.price, s, false, "", FocusVersion::k1_3);
  const std::string v14 = ExportCsv(c.timeline, c.price, s, false, "", FocusVersion::k1_4);
  const auto rep13 = Validate(v13, {.version = focus_test::Version::k1_3});
  const auto rep14 = Validate(v14, {.version = focus_test::Version::k1_4});
  ASSERT_TRUE(rep13.ok()) << rep13.ToString();
  ASSERT_TRUE(rep14.ok()) << rep14.ToString();
  EXPECT_FALSE(Validate(v13, {.version = focus_test::Version::k1_4}).ok())
      << "1.4 has no ProviderName";
  EXPECT_FALSE(Validate(v14, {.version = focus_test::Version::k1_3}).ok())
      << "1.3 has no InvoiceDetailId";

  const focus_test::Table& a = *rep13.table;
  const focus_test::Table& b = *rep14.table;
  ASSERT_EQ(a.rows.size(), b.rows.size());
  EXPECT_EQ(a.header.size(), b.header.size());  // two columns out, two in
  EXPECT_EQ(a.index.count("ProviderName"), 1u);
  EXPECT_EQ(b.index.count("ProviderName"), 0u);
  EXPECT_EQ(b.index.count("PublisherName"), 0u);
  size_t shared = 0, committed = 0;
  for (const std::string& col : a.header) {
    if (b.index.count(col) == 0) continue;
    ++shared;
    for (size_t r = 0; r < a.rows.size(); ++r) {
      ASSERT_EQ(a.At(r, col), b.At(r, col)) << col << " row " << r + 1;
    }
  }
  EXPECT_EQ(shared, a.header.size() - 2);
  for (size_t r = 0; r < b.rows.size(); ++r) {
    EXPECT_FALSE(b.At(r, "InvoiceDetailId").has_value());
    if (b.At(r, "CommitmentDiscountId")) {
      ++committed;
      const auto d = nlohmann::json::parse(b.Str(r, "CommitmentProgramEligibilityDetails"));
      EXPECT_EQ(d["CommitmentPrograms"][0]["ProgramType"], b.Str(r, "CommitmentDiscountType"));
    } else {
      EXPECT_FALSE(b.At(r, "CommitmentProgramEligibilityDetails").has_value()) << "row " << r + 1;
    }
  }
  EXPECT_GT(committed, 0u);
}

// A node priced from the bill is billed to the bill's accounts: BillingAccountId the payer,
// SubAccountId the member account that ran the instance (names where the bill has them). A node
// priced otherwise keeps the cluster as its account, without a sub account.
TEST(FocusExport, BillPricedNodesCarryTheBillsAccounts) {
  PriceChangeCase c = MakePriceChangeCase();
  const PriceFn base = c.price;
  c.price = [base](const Node& node, Window w) {
    std::vector<PricePeriod> out = base(node, w);
    if (node.name == "n2") {
      for (PricePeriod& p : out) {
        p.source = PriceSource::kBill;
        p.payer_account = "111122223333";
        p.payer_account_name = "Acme payer";
        p.usage_account = "444455556666";
      }
    }
    return out;
  };
  for (const auto version : {FocusVersion::k1_3, FocusVersion::k1_4}) {
    const std::string csv =
        ExportCsv(c.timeline, c.price, Settings(c.timeline.window), false, "", version);
    const auto rep =
        Validate(csv, {.version = version == FocusVersion::k1_4 ? focus_test::Version::k1_4
                                                                : focus_test::Version::k1_3});
    ASSERT_TRUE(rep.ok()) << rep.ToString();
    const focus_test::Table& t = *rep.table;
    size_t billed = 0;
    for (size_t r = 0; r < t.rows.size(); ++r) {
      if (t.Str(r, "ResourceName") == "n2") {
        ++billed;
        EXPECT_EQ(t.Str(r, "BillingAccountId"), "111122223333");
        EXPECT_EQ(t.Str(r, "BillingAccountName"), "Acme payer");
        EXPECT_EQ(t.Str(r, "BillingAccountType"), "Billing Account");
        EXPECT_EQ(t.Str(r, "SubAccountId"), "444455556666");
        EXPECT_EQ(t.Str(r, "SubAccountName"), "444455556666") << "no name in the bill: the id";
        EXPECT_EQ(t.Str(r, "SubAccountType"), "Linked Account");
        EXPECT_EQ(t.Str(r, "PricingCategory"), "Other");
      } else {
        EXPECT_EQ(t.Str(r, "BillingAccountId"), "prod");
        EXPECT_EQ(t.Str(r, "BillingAccountType"), "Cluster");
        EXPECT_FALSE(t.At(r, "SubAccountId").has_value());
        EXPECT_FALSE(t.At(r, "SubAccountType").has_value());
      }
    }
    EXPECT_GT(billed, 0u);
  }
}

TEST(FocusValidator, CatchesViolations) {
  const PriceChangeCase c = MakePriceChangeCase();
  const std::string csv = ExportCsv(c.timeline, c.price, Settings(c.timeline.window));
  ASSERT_TRUE(Validate(csv).ok());
  std::string error;
  const focus_test::Table t = *focus_test::ParseCsv(csv, &error);

  const auto write = [](const focus_test::Table& tab) {
    std::string out;
    for (size_t i = 0; i < tab.header.size(); ++i) out += (i ? "," : "") + tab.header[i];
    out += '\n';
    for (const auto& row : tab.rows) {
      for (size_t i = 0; i < row.size(); ++i) {
        if (i) out += ',';
        if (!row[i]) continue;
        out += '"';
        for (char ch : *row[i]) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        out += '"';
      }
      out += '\n';
    }
    return out;
  };
  ASSERT_TRUE(Validate(write(t)).ok()) << Validate(write(t)).ToString();
  const auto mutated = [&](std::string_view column, focus_test::Cell value, size_t row = 0) {
    focus_test::Table m = t;
    m.rows[row][m.index.at(std::string(column))] = std::move(value);
    return Validate(write(m));
  };
  const auto fails = [](const focus_test::Report& r, const std::string& needle) {
    for (const std::string& v : r.violations) {
      if (v.find(needle) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_TRUE(fails(mutated("BilledCost", std::nullopt), "BilledCost: null"));
  EXPECT_TRUE(fails(mutated("EffectiveCost", "1e-05"), "not a FOCUS decimal"));
  EXPECT_TRUE(fails(mutated("ListCost", "+3"), "not a FOCUS decimal"));
  EXPECT_TRUE(fails(mutated("ChargeCategory", "usage"), "not an allowed value"));
  EXPECT_TRUE(fails(mutated("ServiceSubcategory", "Virtual Machines "), "ServiceSubcategory"));
  EXPECT_TRUE(fails(mutated("ChargePeriodStart", "2025-05-31 12:00:00"), "YYYY-MM-DD"));
  EXPECT_TRUE(fails(mutated("RegionName", std::nullopt), "RegionName: null while RegionId"));
  EXPECT_TRUE(fails(mutated("RegionName", ""), "empty string"));
  EXPECT_TRUE(fails(mutated("Tags", "[1,2]"), "not a JSON object"));
  EXPECT_TRUE(fails(mutated("PricingUnit", "gpu hours"), "UnitFormat"));
  EXPECT_TRUE(fails(mutated("BillingCurrency", "usd"), "ISO 4217"));
  EXPECT_TRUE(fails(mutated("BillingPeriodStart", "2025-06-01T00:00:00Z"), "billing period"));
  EXPECT_TRUE(fails(mutated("ChargePeriodEnd", "2025-05-31T12:00:00Z"), "not after"));
  EXPECT_TRUE(fails(mutated("EffectiveCost", "1000"), "below EffectiveCost"));
  EXPECT_TRUE(fails(mutated("ListUnitPrice", "5"), "ListUnitPrice x PricingQuantity"));
  EXPECT_TRUE(fails(mutated("ConsumedQuantity", std::nullopt), "ConsumedQuantity"));
  EXPECT_TRUE(fails(mutated("AllocatedMethodDetails",
                            R"({"Elements":[{"AllocatedRatio":0.01,"UsageUnit":"GPU-Hours"}]})"),
                    "AllocatedRatio"));
  EXPECT_TRUE(fails(mutated("SkuId", "other"), "differs from the other charges"));
  EXPECT_TRUE(fails(mutated("AllocatedTags", R"({"gpucost/node":"n1"})"), "repeats the Tags"));
  EXPECT_TRUE(fails(mutated("PricingCategory", "Committed"), "null on a Committed charge"));
  EXPECT_TRUE(fails(mutated("AllocatedTags", R"({"app":"train"})"), "without a tag scheme prefix"));

  focus_test::Table missing = t;
  missing.header[missing.index.at("SkuMeter")] = "x_SkuMeter";
  EXPECT_TRUE(fails(Validate(write(missing)), "missing column SkuMeter"));

  // 1.4's own rules, on a 1.4 export.
  const std::string csv14 = ExportCsv(c.timeline, c.price, Settings(c.timeline.window), false,
                                      "gpucost", FocusVersion::k1_4);
  const focus_test::Options v14{.version = focus_test::Version::k1_4};
  ASSERT_TRUE(Validate(csv14, v14).ok()) << Validate(csv14, v14).ToString();
  const focus_test::Table t14 = *focus_test::ParseCsv(csv14, &error);
  size_t committed = 0;
  while (committed < t14.rows.size() && !t14.At(committed, "CommitmentDiscountId")) ++committed;
  ASSERT_LT(committed, t14.rows.size());
  const auto mutated14 = [&](std::string_view column, focus_test::Cell value, size_t row) {
    focus_test::Table m = t14;
    m.rows[row][m.index.at(std::string(column))] = std::move(value);
    return Validate(write(m), v14);
  };
  EXPECT_TRUE(fails(mutated14("PricingCurrency", std::nullopt, 0), "PricingCurrency: null"));
  EXPECT_TRUE(fails(mutated14("InvoiceDetailId", "line-1", 0), "without an invoice"));
  EXPECT_TRUE(fails(mutated14("CommitmentProgramEligibilityDetails", std::nullopt, committed),
                    "null on a charge a commitment covered"));
  EXPECT_TRUE(
      fails(mutated14("CommitmentProgramEligibilityDetails",
                      R"({"CommitmentPrograms":[{"ProgramType":"SavingsPlan"}]})", committed),
            "no program of the CommitmentDiscountType"));
  EXPECT_TRUE(fails(
      mutated14("CommitmentProgramEligibilityDetails", R"({"CommitmentPrograms":[]})", committed),
      "no CommitmentPrograms array"));
  focus_test::Table with_provider = t14;
  with_provider.header[with_provider.index.at("InvoiceDetailId")] = "ProviderName";
  EXPECT_TRUE(fails(Validate(write(with_provider), v14), "neither a FOCUS 1.4 column"));
}

}  // namespace
}  // namespace gpucost
