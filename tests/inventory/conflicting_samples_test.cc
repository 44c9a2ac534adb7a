// Two samples of one series at one instant with different values, read through the parser as
// files are: the first one in input order is kept, as Prometheus keeps it, and a warning names the
// series, the instant, both values and where (docs/inputs.md "conflicting duplicates"), whether the
// two come in a row, out of time order within a file, or in two files; for dcgm-exporter,
// kube-state-metrics and the node agent alike. The same value twice says nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "inventory/inventory_builder.h"
#include "inventory/inventory_test_util.h"

// A namespace of its own: the module's tests build as one unit, with helpers of the same names.
namespace gpucost::conflicting_samples_test {
namespace {

using inventory_test::FindNode;
using Files = std::vector<std::pair<std::string, std::string>>;  // name, text

constexpr int64_t kT0 = 1'700'000'000'000;  // 2023-11-14T22:13:20Z
const char* const kT1Text = "2023-11-14T22:13:50Z";

// `lines` with each "%T" replaced by kT0 + k scrapes of 30 s.
std::string At(std::string lines, int k) {
  const std::string t = std::to_string(kT0 + int64_t{k} * 30'000);
  for (size_t p = lines.find("%T"); p != std::string::npos; p = lines.find("%T")) {
    lines.replace(p, 2, t);
  }
  return lines + "\n";
}

// `line` with `value` at scrapes first..last.
std::string Scrapes(const std::string& line, const std::string& value, int first, int last) {
  std::string out;
  for (int k = first; k <= last; ++k) out += At(line + " " + value + " %T", k);
  return out;
}

LoadedTimeline Read(const Files& files) {
  InventoryBuilder b;
  for (const auto& [name, text] : files) {
    const Status s = b.AddText(text, name);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  auto r = b.Build();
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return std::move(r).value();
}

std::string AllWarnings(const LoadedTimeline& t) {
  std::string out;
  for (const InputWarning& w : t.warnings) out += w.ToString() + "\n";
  return out;
}

// The warning that says `needle`, or "" when none does.
std::string WarningWith(const LoadedTimeline& t, const std::string& needle) {
  for (const InputWarning& w : t.warnings) {
    const std::string s = w.ToString();
    if (s.find(needle) != std::string::npos) return s;
  }
  return "";
}

void ExpectNamed(const std::string& warning, const std::vector<std::string>& parts) {
  for (const std::string& p : parts) {
    EXPECT_NE(warning.find(p), std::string::npos) << "no \"" << p << "\" in: " << warning;
  }
}

std::vector<double> DeviceValues(const LoadedTimeline& t, const std::string& uuid) {
  std::vector<double> out;
  for (const DeviceSeries& d : t.usage.devices) {
    if (d.gpu_uuid != uuid) continue;
    for (const UsageSample& s : d.samples) out.push_back(s.value);
  }
  return out;
}

// The GPU count requested at each holding of the timeline, in time order.
std::vector<std::pair<int64_t, double>> Requests(const LoadedTimeline& t) {
  std::vector<std::pair<int64_t, double>> out;
  for (const Holding& h : t.inventory.holdings) {
    out.emplace_back(UnixMs(h.interval.start) - kT0, h.request.count);
  }
  std::sort(out.begin(), out.end());
  return out;
}

const std::string kDcgm = R"(DCGM_FI_PROF_GR_ENGINE_ACTIVE{gpu="0",UUID="GPU-a",Hostname="n1"})";

TEST(ConflictingSamples, DcgmInTwoFilesOutOfTimeOrder) {
  // b.prom repeats the second scrape of a.prom with another value (0.65 -> 0.99).
  const LoadedTimeline t =
      Read({{"a.prom", Scrapes(kDcgm, "0.65", 0, 3)}, {"b.prom", Scrapes(kDcgm, "0.99", 1, 1)}});
  EXPECT_EQ(DeviceValues(t, "GPU-a"), (std::vector<double>(4, 0.65)));
  const std::string w = WarningWith(t, "two different values");
  ASSERT_FALSE(w.empty()) << AllWarnings(t);
  ExpectNamed(w, {"b.prom:1: ", kDcgm, kT1Text, "0.65", "then 0.99", "(0.65) is used"});

  // The same value again, out of order: nothing to say.
  const LoadedTimeline same =
      Read({{"a.prom", Scrapes(kDcgm, "0.65", 0, 3)}, {"b.prom", Scrapes(kDcgm, "0.65", 1, 2)}});
  EXPECT_EQ(DeviceValues(same, "GPU-a"), (std::vector<double>(4, 0.65)));
  EXPECT_TRUE(same.warnings.empty()) << AllWarnings(same);
}

TEST(ConflictingSamples, DcgmUnsortedLinesInOneFile) {
  // Line 3 goes back in time; line 5 gives the second scrape a second value.
  const std::string text = At(kDcgm + " 0.5 %T", 0) + At(kDcgm + " 0.5 %T", 2) +
                           At(kDcgm + " 0.65 %T", 1) + At(kDcgm + " 0.5 %T", 3) +
                           At(kDcgm + " 0.99 %T", 1) + At(kDcgm + " 0.5 %T", 5) +
                           At(kDcgm + " 0.1 %T", 4) + At(kDcgm + " 0.2 %T", 4);
  const LoadedTimeline t = Read({{"u.prom", text}});
  // The eighth line repeats the seventh's instant at once: told where it is.
  const std::string in_a_row = WarningWith(t, "u.prom:8: ");
  ASSERT_FALSE(in_a_row.empty()) << AllWarnings(t);
  ExpectNamed(in_a_row, {kDcgm, "two different values", "0.1, then 0.2", "(0.1) is used"});
  EXPECT_EQ(DeviceValues(t, "GPU-a"), (std::vector<double>{0.5, 0.65, 0.5, 0.5, 0.1, 0.5}));
  // The out-of-order pair, found when the series is sorted: counted with the first.
  ASSERT_EQ(t.warnings.size(), 1u) << AllWarnings(t);
  EXPECT_EQ(t.warnings[0].count, 2u) << AllWarnings(t);
}

TEST(ConflictingSamples, DcgmOutOfOrderConflictAloneNamesWhereTheSeriesWentBack) {
  const std::string text = At(kDcgm + " 0.5 %T", 0) + At(kDcgm + " 0.5 %T", 2) +
                           At(kDcgm + " 0.65 %T", 1) + At(kDcgm + " 0.5 %T", 3) +
                           At(kDcgm + " 0.99 %T", 1) + At(kDcgm + " 0.3 %T", 0);
  const LoadedTimeline t = Read({{"u.prom", text}});
  EXPECT_EQ(DeviceValues(t, "GPU-a"), (std::vector<double>{0.5, 0.65, 0.5, 0.5}));
  ASSERT_EQ(t.warnings.size(), 1u) << AllWarnings(t);
  // Two instants conflict; the earliest is named, the other counted.
  ExpectNamed(t.warnings[0].ToString(), {"u.prom:3: ", kDcgm, "2023-11-14T22:13:20Z",
                                         "0.5, then 0.3", "(0.5) is used", "1 more instant"});
}

const std::string kRequest =
    R"(kube_pod_container_resource_requests{namespace="ml",pod="p",uid="u",container="c",node="n1",resource="nvidia_com_gpu",unit="integer"})";
const std::string kPodLines =
    R"(kube_pod_info{namespace="ml",pod="p",uid="u",node="n1"} 1 %T)"
    "\n"
    R"(kube_pod_status_phase{namespace="ml",pod="p",uid="u",phase="Running"} 1 %T)";
const std::string kCapacity =
    R"(kube_node_status_capacity{node="n1",resource="nvidia_com_gpu",unit="integer"})";

std::string Pod(int first, int last) {
  std::string out;
  for (int k = first; k <= last; ++k) out += At(kPodLines, k);
  return out;
}

// A pod's GPU count is its request's latest value (extended resources are not resized in place).
TEST(ConflictingSamples, KsmRequestTwiceInARow) {
  // Four scrapes of 1 GPU; the last scrape's request is written again as 2.
  const std::string pod = Scrapes(kCapacity, "8", 0, 3) + Pod(0, 3);
  const LoadedTimeline t =
      Read({{"k.prom", pod + Scrapes(kRequest, "1", 0, 3) + At(kRequest + " 2 %T", 3)}});
  EXPECT_EQ(Requests(t), (std::vector<std::pair<int64_t, double>>{{0, 1}}));
  const std::string w = WarningWith(t, "two different values");
  ASSERT_FALSE(w.empty()) << AllWarnings(t);
  // Line 17: 4 capacity, 8 pod lines, 4 requests, then the repeat.
  ExpectNamed(w, {"k.prom:17: ", kRequest, "2023-11-14T22:14:50Z", "1, then 2", "(1) is used"});

  // Written twice the same: nothing to say.
  const LoadedTimeline same =
      Read({{"k.prom", pod + Scrapes(kRequest, "1", 0, 3) + At(kRequest + " 1 %T", 3)}});
  EXPECT_EQ(Requests(same), (std::vector<std::pair<int64_t, double>>{{0, 1}}));
  EXPECT_TRUE(same.warnings.empty()) << AllWarnings(same);
}

TEST(ConflictingSamples, KsmRequestInTwoFilesOutOfTimeOrder) {
  // b.prom says 2 GPUs for the last three scrapes of a.prom, which said 1.
  const std::string pod = Scrapes(kCapacity, "8", 0, 3) + Pod(0, 3);
  const LoadedTimeline t = Read(
      {{"a.prom", pod + Scrapes(kRequest, "1", 0, 3)}, {"b.prom", Scrapes(kRequest, "2", 1, 3)}});
  EXPECT_EQ(Requests(t), (std::vector<std::pair<int64_t, double>>{{0, 1}}));
  const std::string w = WarningWith(t, "two different values");
  ASSERT_FALSE(w.empty()) << AllWarnings(t);
  ExpectNamed(w, {"b.prom:1: ", kRequest, kT1Text, "1, then 2", "(1) is used",
                  "likewise at 2 more instants"});

  // The pod's phase and info series going back in time with the same values: nothing to say.
  const LoadedTimeline same = Read({{"a.prom", pod + Scrapes(kRequest, "1", 0, 3)},
                                    {"b.prom", Pod(1, 2) + Scrapes(kRequest, "1", 1, 2)}});
  EXPECT_EQ(Requests(same), (std::vector<std::pair<int64_t, double>>{{0, 1}}));
  EXPECT_TRUE(same.warnings.empty()) << AllWarnings(same);
}

TEST(ConflictingSamples, KsmNodeCapacity) {
  // The last scrape's capacity written as 8 and then 4 (in a row, then in another file).
  const LoadedTimeline t =
      Read({{"k.prom", Scrapes(kCapacity, "8", 0, 3) + At(kCapacity + " 4 %T", 3)}});
  const Node* n = FindNode(t, "n1");
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->physical_gpus, 8);
  ExpectNamed(WarningWith(t, "two different values"),
              {"k.prom:5: ", kCapacity, "2023-11-14T22:14:50Z", "8, then 4", "(8) is used"});
  const LoadedTimeline files =
      Read({{"a.prom", Scrapes(kCapacity, "8", 0, 3)}, {"b.prom", Scrapes(kCapacity, "4", 3, 3)}});
  ASSERT_NE(FindNode(files, "n1"), nullptr);
  EXPECT_EQ(FindNode(files, "n1")->physical_gpus, 8);
  ExpectNamed(WarningWith(files, "two different values"), {"b.prom:1: ", kCapacity, "8, then 4"});
}

const std::string kAgentInfo =
    R"(gpucost_agent_gpu_info{node="solo",gpu_uuid="GPU-s",gpu_index="0",model="NVIDIA L4"})";
const std::string kAgentUnit =
    R"(gpucost_agent_unit_activity_ratio{node="solo",gpu_uuid="GPU-s",source="utilization"})";

TEST(ConflictingSamples, AgentUnitActivity) {
  const std::string info = Scrapes(kAgentInfo, "1", 0, 3);
  // In a row.
  const LoadedTimeline t =
      Read({{"g.prom", info + Scrapes(kAgentUnit, "0.65", 0, 1) + At(kAgentUnit + " 0.99 %T", 1) +
                           Scrapes(kAgentUnit, "0.65", 2, 3)}});
  EXPECT_EQ(DeviceValues(t, "GPU-s"), (std::vector<double>(4, 0.65)));
  ExpectNamed(WarningWith(t, "two different values"),
              {"g.prom:7: ", kAgentUnit, kT1Text, "0.65, then 0.99", "(0.65) is used"});
  // In two files, out of time order.
  const LoadedTimeline files = Read({{"a.prom", info + Scrapes(kAgentUnit, "0.65", 0, 3)},
                                     {"b.prom", Scrapes(kAgentUnit, "0.99", 1, 1)}});
  EXPECT_EQ(DeviceValues(files, "GPU-s"), (std::vector<double>(4, 0.65)));
  ExpectNamed(WarningWith(files, "two different values"),
              {"b.prom:1: ", kAgentUnit, kT1Text, "0.65, then 0.99", "(0.65) is used"});
}

}  // namespace
}  // namespace gpucost::conflicting_samples_test
