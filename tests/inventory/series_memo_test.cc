// The series memo and cache: what a reader reuses for the further samples of a series, and the
// proof that reusing it changes nothing: kube-state-metrics series read whole (as remote read
// hands them over, with the source's series ids) or interleaved with ids (as exposition text
// gives them) give the reader exactly what the same samples interleaved without ids give it.
#include "inventory/series_memo.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "inventory/diagnostics.h"
#include "inventory/ksm_reader.h"

namespace gpucost {
namespace {

struct Series {
  std::string name;
  std::vector<std::pair<std::string, std::string>> labels;
  std::vector<std::pair<int64_t, double>> samples;
};

SampleView View(const Series& s, std::vector<LabelView>& scratch, uint64_t id) {
  scratch.clear();
  for (const auto& [k, v] : s.labels) scratch.push_back(LabelView{k, v});
  SampleView v;
  v.name = s.name;
  v.labels = scratch;
  v.has_timestamp = true;
  v.series = id;
  return v;
}

TEST(SeriesMemo, KnowsTheSeriesReadLastByItsNameAndLabels) {
  const Series a{"m", {{"pod", "a"}, {"node", "n1"}}, {}};
  const Series b{"m", {{"pod", "a"}, {"node", "n2"}}, {}};
  std::vector<LabelView> sa, sb;
  SeriesMemo memo;
  EXPECT_FALSE(memo.Hit(View(a, sa, 0)));  // nothing remembered yet
  EXPECT_TRUE(memo.Worth());
  memo.Remember(View(a, sa, 0));
  EXPECT_TRUE(memo.Hit(View(a, sa, 0)));
  EXPECT_FALSE(memo.Hit(View(b, sb, 0)));  // one label value differs
  EXPECT_FALSE(memo.Hit(View(a, sa, 0)));  // a miss forgets what was remembered
}

TEST(SeriesCache, KnowsEverySeriesByItsIdAndTheLastOneWithoutIdByItsLabels) {
  const Series a{"m", {{"pod", "a"}}, {}};
  const Series b{"m", {{"pod", "b"}}, {}};
  std::vector<LabelView> sa, sb;
  SeriesCache<std::string> cache;
  const uint64_t ida = NewSeriesId(), idb = NewSeriesId();
  EXPECT_EQ(cache.Find(View(a, sa, ida)), nullptr);
  EXPECT_TRUE(cache.Worth(View(a, sa, ida)));
  cache.Remember(View(a, sa, ida), "resolved a");
  cache.Remember(View(b, sb, idb), "resolved b");
  // Interleaved, each finds its own.
  for (int i = 0; i < 3; ++i) {
    ASSERT_NE(cache.Find(View(a, sa, ida)), nullptr);
    EXPECT_EQ(*cache.Find(View(a, sa, ida)), "resolved a");
    ASSERT_NE(cache.Find(View(b, sb, idb)), nullptr);
    EXPECT_EQ(*cache.Find(View(b, sb, idb)), "resolved b");
  }
  // The id decides: the same labels under another id (another response, another file) are
  // resolved again, and a sample without an id is not taken for one with.
  EXPECT_EQ(cache.Find(View(a, sa, NewSeriesId())), nullptr);
  EXPECT_EQ(cache.Find(View(a, sa, 0)), nullptr);
  cache.Remember(View(a, sa, 0), "resolved a, no id");
  ASSERT_NE(cache.Find(View(a, sa, 0)), nullptr);
  EXPECT_EQ(*cache.Find(View(a, sa, 0)), "resolved a, no id");
  EXPECT_EQ(*cache.Find(View(a, sa, ida)), "resolved a");
  cache.Clear();
  EXPECT_EQ(cache.Find(View(a, sa, ida)), nullptr);
  EXPECT_EQ(cache.Find(View(a, sa, 0)), nullptr);
}

TEST(SeriesMemo, RestsWhereSeriesInterleave) {
  const Series a{"m", {{"pod", "a"}}, {}};
  const Series b{"m", {{"pod", "b"}}, {}};
  std::vector<LabelView> sa, sb;
  SeriesMemo memo;
  // 64 misses in a row: the next 4096 samples are not worth remembering.
  for (int i = 0; i < 64; ++i) {
    const SampleView v = i % 2 == 0 ? View(a, sa, 0) : View(b, sb, 0);
    ASSERT_FALSE(memo.Hit(v)) << i;
    ASSERT_TRUE(memo.Worth()) << i;
    memo.Remember(v);
  }
  for (int i = 0; i < 4096; ++i) {
    ASSERT_FALSE(memo.Hit(View(a, sa, 0))) << i;
    ASSERT_FALSE(memo.Worth()) << i;
  }
  EXPECT_FALSE(memo.Hit(View(a, sa, 0)));
  EXPECT_TRUE(memo.Worth());
  memo.Remember(View(a, sa, 0));
  EXPECT_TRUE(memo.Hit(View(a, sa, 0)));
}

// Every series family the reader memoises, with what changes mid-window: labels and provider ids
// that move to a new series, a capacity and phases whose values change within one series, and
// series the reader keeps nothing of per sample.
std::vector<Series> KsmSeries() {
  std::vector<Series> out;
  const auto every = [](int from, int to, double v) {
    std::vector<std::pair<int64_t, double>> s;
    for (int i = from; i < to; ++i) s.emplace_back(int64_t{i} * 30000, v);
    return s;
  };
  const auto pod = [](std::vector<std::pair<std::string, std::string>> more) {
    std::vector<std::pair<std::string, std::string>> l{
        {"namespace", "ml"}, {"pod", "train-0"}, {"uid", "u1"}};
    l.insert(l.end(), more.begin(), more.end());
    return l;
  };
  out.push_back({"kube_node_labels", {{"node", "n1"}, {"label_pool", "a"}}, every(0, 6, 1)});
  out.push_back({"kube_node_labels", {{"node", "n1"}, {"label_pool", "b"}}, every(6, 10, 1)});
  out.push_back(
      {"kube_node_info", {{"node", "n1"}, {"provider_id", "aws:///z/i-1"}}, every(0, 5, 1)});
  out.push_back(
      {"kube_node_info", {{"node", "n1"}, {"provider_id", "aws:///z/i-2"}}, every(5, 10, 1)});
  Series gpus{"kube_node_status_capacity",
              {{"node", "n1"}, {"resource", "nvidia_com_gpu"}, {"unit", "integer"}},
              every(0, 10, 8)};
  gpus.samples[9].second = 4;
  out.push_back(gpus);
  out.push_back(
      {"kube_node_status_capacity", {{"node", "n1"}, {"resource", "cpu"}}, every(0, 10, 96)});
  out.push_back(
      {"kube_node_status_condition", {{"node", "n1"}, {"condition", "Ready"}}, every(0, 10, 1)});
  Series pending{"kube_pod_status_phase", pod({{"phase", "Pending"}}), every(0, 10, 0)};
  Series running{"kube_pod_status_phase", pod({{"phase", "Running"}}), every(0, 10, 1)};
  for (int i = 0; i < 3; ++i) {
    pending.samples[i].second = 1;
    running.samples[i].second = 0;
  }
  out.push_back(pending);
  out.push_back(running);
  out.push_back({"kube_pod_info", pod({{"node", "n1"}}), every(0, 10, 1)});
  out.push_back({"kube_pod_labels", pod({{"label_team", "vision"}}), every(0, 4, 1)});
  out.push_back({"kube_pod_labels", pod({{"label_team", "speech"}}), every(4, 10, 1)});
  out.push_back(
      {"kube_pod_owner",
       pod({{"owner_kind", "Job"}, {"owner_name", "nightly"}, {"owner_is_controller", "true"}}),
       every(0, 10, 1)});
  out.push_back({"kube_pod_container_resource_requests",
                 pod({{"container", "main"}, {"node", "n1"}, {"resource", "nvidia_com_gpu"}}),
                 every(0, 10, 2)});
  out.push_back({"kube_pod_container_resource_requests",
                 pod({{"container", "main"}, {"node", "n1"}, {"resource", "cpu"}}),
                 every(0, 10, 4)});
  out.push_back({"kube_namespace_labels",
                 {{"namespace", "ml"}, {"label_team", "research"}},
                 every(0, 10, 1)});
  out.push_back({"kube_deployment_created", {{"deployment", "web"}}, every(0, 10, 1)});
  return out;
}

// What a reader made of its samples, as text that differs where anything it keeps differs.
std::string Describe(KsmData& d) {
  std::ostringstream out;
  const auto presence = [&](const PresenceSeries& p) {
    p.ForEach([&](int64_t t, double v) { out << ' ' << t << '=' << v; });
    out << '\n';
  };
  for (const auto& [key, node] : d.nodes) {
    out << "node " << key.second << " provider " << node.provider_id << '@' << node.provider_id_t
        << " labels@" << node.labels_t;
    for (const auto& [k, v] : node.labels) out << ' ' << k << '=' << v;
    for (const auto& [r, v] : node.capacity)
      out << " cap " << r << '=' << v << '@' << node.capacity_t.at(r);
    out << "\n seen";
    presence(node.seen);
  }
  for (const auto& [key, pod] : d.pods) {
    out << "pod " << key.pod << " labels@" << pod.labels_t;
    for (const auto& [k, v] : pod.labels) out << ' ' << k << '=' << v;
    for (const OwnerRef& o : pod.owners) out << " owner " << o.kind << '/' << o.name;
    out << " request_node " << pod.request_node << '\n';
    for (const auto& [phase, p] : pod.phases) {
      out << " phase " << phase;
      presence(p);
    }
    for (const auto& [node, p] : pod.info_by_node) {
      out << " info " << node;
      presence(p);
    }
    for (const auto& [rk, p] : pod.resources) {
      out << " resource " << rk.container << ' ' << rk.resource << ' ' << rk.from_limits;
      presence(p);
    }
  }
  for (const auto& [key, labels] : d.namespace_labels) {
    for (const auto& [k, v] : labels) out << "namespace " << key.second << ' ' << k << '=' << v;
  }
  return out.str();
}

// Reads the series one after another, each whole, with series ids when `ids`.
std::string ReadWhole(const std::vector<Series>& all, bool ids) {
  KsmReader reader("c");
  Diagnostics diag;
  std::vector<LabelView> scratch;
  for (const Series& s : all) {
    const uint64_t id = ids ? NewSeriesId() : 0;
    for (const auto& [t, v] : s.samples) {
      SampleView view = View(s, scratch, id);
      view.timestamp_ms = t;
      view.value = v;
      reader.OnSample(view, t, "t", diag);
    }
  }
  reader.Finish(diag);
  return Describe(reader.data());
}

// Reads the samples scrape by scrape, series interleaved (as exposition text has them), each
// series with an id of its own when `ids`.
std::string ReadInterleaved(const std::vector<Series>& all, bool ids) {
  KsmReader reader("c");
  Diagnostics diag;
  std::vector<std::pair<int64_t, size_t>> order;  // (t, series)
  std::vector<uint64_t> id(all.size(), 0);
  for (size_t i = 0; i < all.size(); ++i) {
    for (const auto& [t, v] : all[i].samples) order.emplace_back(t, i);
    if (ids) id[i] = NewSeriesId();
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<LabelView> scratch;
  for (const auto& [t, i] : order) {
    SampleView view = View(all[i], scratch, id[i]);
    for (const auto& [st, v] : all[i].samples) {
      if (st == t) view.value = v;
    }
    view.timestamp_ms = t;
    reader.OnSample(view, t, "t", diag);
  }
  reader.Finish(diag);
  return Describe(reader.data());
}

TEST(KsmReaderMemo, SeriesGiveTheSameWhetherReadWholeOrInterleavedWithOrWithoutIds) {
  std::vector<Series> all = KsmSeries();
  const std::string interleaved = ReadInterleaved(all, false);
  // What the memo must not lose: the newer labels and provider id, the capacity's last value,
  // every phase sample.
  EXPECT_NE(interleaved.find("pool=b"), std::string::npos) << interleaved;
  EXPECT_NE(interleaved.find("provider aws:///z/i-2@270000"), std::string::npos) << interleaved;
  EXPECT_NE(interleaved.find("cap nvidia.com/gpu=4@270000"), std::string::npos) << interleaved;
  EXPECT_NE(interleaved.find("team=speech"), std::string::npos) << interleaved;
  EXPECT_NE(interleaved.find(" phase Running 0=0 30000=0 60000=0 90000=1"), std::string::npos)
      << interleaved;

  EXPECT_EQ(ReadInterleaved(all, true), interleaved);
  EXPECT_EQ(ReadWhole(all, true), interleaved);
  EXPECT_EQ(ReadWhole(all, false), interleaved);
  // Newer series first: what is latest still wins.
  std::reverse(all.begin(), all.end());
  EXPECT_EQ(ReadWhole(all, true), interleaved);
  EXPECT_EQ(ReadWhole(all, false), interleaved);
}

}  // namespace
}  // namespace gpucost
