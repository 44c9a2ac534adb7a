// Warnings name where they come from: a file's line, or, from a source without lines (a
// Prometheus-compatible store, the query API), the series and the sample's time.
#include "inventory/diagnostics.h"

#include <gtest/gtest.h>

#include <vector>

#include "ingest/exposition.h"

namespace gpucost {
namespace {

TEST(Diagnostics, ASampleWithoutALineIsNamedByItsSeriesAndTime) {
  const std::vector<LabelView> labels = {{"UUID", "GPU-a"}, {"Hostname", "n1"}};
  SampleView s;
  s.name = "DCGM_FI_PROF_GR_ENGINE_ACTIVE";
  s.labels = labels;
  s.value = -0.3;
  s.has_timestamp = true;
  s.timestamp_ms = 1'790'812'800'000;
  Diagnostics d;
  d.Warn("negative-usage", "prometheus:http://prom:9090", s, "it is negative (-0.3)");
  s.timestamp_ms += 60'000;
  d.Warn("negative-usage", "prometheus:http://prom:9090", s, "it is negative (-0.3)");
  ASSERT_EQ(d.warnings().size(), 1u);
  EXPECT_EQ(d.warnings()[0].ToString(),
            "prometheus:http://prom:9090: it is negative (-0.3) "
            "(DCGM_FI_PROF_GR_ENGINE_ACTIVE{UUID=\"GPU-a\",Hostname=\"n1\"} at "
            "2026-10-01T00:00:00Z) (and 1 more like it)");

  // In a file the line says where, as before.
  s.line = 12;
  Diagnostics file;
  file.Warn("negative-usage", "dcgm.prom", s, "it is negative (-0.3)");
  EXPECT_EQ(file.warnings()[0].ToString(), "dcgm.prom:12: it is negative (-0.3)");
}

}  // namespace
}  // namespace gpucost
