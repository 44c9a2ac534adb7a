#include "serve/opencost_api.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/ledger_types.h"
#include "pipeline/input.h"
#include "pipeline/report_pipeline.h"
#include "serve/api_errors.h"
#include "serve/opencost_filter.h"

namespace gpucost::serve {
namespace {

using nlohmann::json;
using std::chrono::days;
using std::chrono::floor;
using std::chrono::sys_days;
using std::chrono::year_month_day;

json Num(double v) {
  if (!std::isfinite(v)) return nullptr;
  return std::round(v * 1e5) / 1e5;  // OpenCost rounds floats to 5 decimals
}

Instant DayStart(Instant t) { return std::chrono::time_point_cast<Duration>(floor<days>(t)); }

// OpenCost's aggregate names -> gpucost's dimensions; "" = the default grouping.
Result<std::string> Dimensions(std::string_view aggregate) {
  if (aggregate.empty()) return std::string("cluster,node,namespace,pod,container");
  std::vector<std::string> out;
  for (const std::string& a : SplitList(aggregate)) {
    if (a == "cluster" || a == "node" || a == "namespace" || a == "pod" || a == "container" ||
        a == "team") {
      out.push_back(a);
    } else if (a == "controllerKind") {
      out.push_back("workload_kind");
    } else if (a == "controller") {
      out.push_back("workload");
    } else if (a.rfind("label:", 0) == 0) {
      out.push_back(a);
    } else {
      return Status::InvalidArgument(
          StrCat("aggregate \"", a,
                 "\": gpucost answers cluster, node, namespace, "
                 "controllerKind, controller, pod, container, team and label:<key>"));
    }
  }
  return Join(out, ",");
}

// OpenCost's property names for the grouping dimensions.
std::string Property(const Dimension& d) {
  switch (d.kind) {
    case DimensionKind::kWorkload:
      return "controller";
    case DimensionKind::kWorkloadKind:
      return "controllerKind";
    default:
      return d.Name();
  }
}

bool Flag(const std::function<std::string(const char*)>& param, const char* name) {
  const std::string v = param(name);
  return v == "true" || v == "1";
}

}  // namespace

Result<Window> ParseOpenCostWindow(std::string_view text, Instant now) {
  const Instant today = DayStart(now);
  if (text == "today") return Window{today, now};
  if (text == "yesterday") return Window{today - days(1), today};
  // ISO weeks start on Monday; 1970-01-01 was a Thursday.
  const int64_t day_index = floor<days>(today).time_since_epoch().count();
  const Instant week = today - days((day_index + 3) % 7);
  if (text == "week") return Window{week, now};
  if (text == "lastweek") return Window{week - days(7), week};
  const year_month_day ymd{floor<days>(today)};
  const Instant month = std::chrono::time_point_cast<Duration>(
      sys_days{ymd.year() / ymd.month() / std::chrono::day(1)});
  if (text == "month") return Window{month, now};
  if (text == "lastmonth") {
    const year_month_day prev =
        ymd.year() / ymd.month() / std::chrono::day(1) - std::chrono::months(1);
    return Window{std::chrono::time_point_cast<Duration>(sys_days{prev}), month};
  }
  if (text.find(',') != std::string_view::npos) return ParseWindow(text);
  Result<Duration> d = ParseDuration(text);
  if (!d.ok() || d->count() <= 0) {
    return Status::InvalidArgument(StrCat("window \"", text,
                                          "\": expected START,END, a duration "
                                          "(7d), today, yesterday, week, lastweek, month or "
                                          "lastmonth"));
  }
  return Window{now - *d, now};
}

ApiResponse OpenCostAllocation(const std::string& ledger_path,
                               const std::function<std::string(const char*)>& param, Instant now) {
  const auto fail = [](int status, std::string_view message) {
    return ApiResponse{status, json{{"code", status}, {"message", message}}.dump(
                                   -1, ' ', false, json::error_handler_t::replace)};
  };
  // The ledger's failures as serve's other API answers them (api_errors.h).
  const auto failed = [&](const Status& s) {
    const ApiError e = ApiErrorOf(s, ledger_path);
    if (e.status >= 500 && !ledger::IsEmptyLedger(s)) {
      LogError(StrCat("gpucost serve: /allocation: ", s.ToString()));
    }
    ApiResponse r = fail(e.status, e.message);
    r.cause = s.code();
    return r;
  };
  if (param("window").empty()) return fail(400, "window is required");
  Result<Window> window = ParseOpenCostWindow(param("window"), now);
  if (!window.ok()) return fail(400, window.status().message());
  Result<AllocationFilter> filter = AllocationFilter::Parse(param("filter"));
  if (!filter.ok()) return fail(400, filter.status().message());
  Result<std::string> dims = Dimensions(param("aggregate"));
  if (!dims.ok()) return fail(400, dims.status().message());
  ReportSettings base;
  Result<std::vector<Dimension>> by = ParseDimensions(*dims);
  if (!by.ok()) return fail(400, by.status().message());
  base.by = *by;
  base.accumulate = true;
  if (Flag(param, "shareIdle")) base.idle.policy = IdlePolicy::kProportional;
  if (Flag(param, "idleByNode")) base.idle.scope = IdleScope::kNode;
  const bool include_idle = Flag(param, "includeIdle") || Flag(param, "shareIdle");

  // The sets: one per step (default and with accumulate=true: the whole window).
  Duration step = window->end - window->start;
  if (!param("step").empty() && !Flag(param, "accumulate")) {
    Result<Duration> s = ParseDuration(param("step"));
    if (!s.ok() || s->count() <= 0) return fail(400, "step: expected a duration (1h, 1d)");
    step = *s;
  }
  if ((window->end - window->start) / step > 1000) return fail(400, "more than 1000 steps");
  // Windows relative to now fall between the ledger's steps: round them down onto its step.
  {
    Result<std::unique_ptr<ledger::Ledger>> l = ledger::Ledger::Open(ledger_path);
    if (!l.ok()) return failed(l.status());
    Result<Duration> newest = (*l)->NewestStep();
    if (!newest.ok()) return failed(newest.status());
    if (newest->count() > 0) {
      const int64_t ms = newest->count();
      const auto down = [ms](Instant t) {
        const int64_t v = UnixMs(t);
        return InstantFromUnixMs(v - ((v % ms) + ms) % ms);
      };
      window = Window{down(window->start), down(window->end)};
      if (window->end <= window->start) return fail(400, "window shorter than the ledger's step");
    }
  }

  json data = json::array();
  for (Instant t = window->start; t < window->end; t += step) {
    const Window w{t, std::min(window->end, t + step)};
    json set = json::object();
    InputOptions in;
    in.ledger = ledger_path;
    Result<LoadedInput> input = LoadInput(in, w, Duration(0));
    if (!input.ok()) {
      if (input.status().message().find("no cost records") == std::string_view::npos) {
        return failed(input.status());
      }
      data.push_back(std::move(set));
      continue;
    }
    if (input->records) {
      auto kept = std::make_shared<std::vector<CostRecord>>();
      for (const CostRecord& r : *input->records) {
        if (filter->Matches(input->timeline.inventory, r)) kept->push_back(r);
      }
      input->records = std::move(kept);
    }
    ReportSettings settings = base;
    ApplyInput(*input, settings);
    Result<ReportRun> run = RunReport(input->timeline, PriceFn(), settings);
    if (!run.ok()) return failed(run.status());
    const double hours = std::chrono::duration<double, std::ratio<3600>>(w.end - w.start).count();
    for (const ReportRow& row : run->report.rows) {
      if (row.is_idle && !include_idle) continue;
      // Idle is named by the capacity it is on, as OpenCost names idle kept apart by cluster
      // or node ("cluster-one/__idle__"): its capacity values, then __idle__; a grouping without
      // them has one "__idle__".
      std::vector<std::string> parts;
      json properties = json::object();
      for (size_t i = 0; i < base.by.size(); ++i) {
        if (row.is_idle && row.values[i] == kIdleValue) continue;
        parts.push_back(row.values[i]);
        properties[Property(base.by[i])] = row.values[i];
      }
      if (row.is_idle) parts.emplace_back(kIdleValue);
      const std::string name = Join(parts, "/");
      const double cost = row.is_idle ? row.idle_usd : row.allocated_usd;
      const double usage = hours > 0 ? row.activity_gpu_hours / hours : NAN;
      const double count = hours > 0 ? row.gpu_hours / hours : NAN;
      set[name] = {
          {"name", name},
          {"properties", std::move(properties)},
          {"window", {{"start", FormatRfc3339(w.start)}, {"end", FormatRfc3339(w.end)}}},
          {"start", FormatRfc3339(w.start)},
          {"end", FormatRfc3339(w.end)},
          {"minutes", Num(hours * 60)},
          {"gpuCount", Num(count)},
          {"gpuHours", Num(row.gpu_hours)},
          {"gpuCost", Num(cost)},
          {"gpuCostAdjustment", 0},
          {"gpuCostIdle", Num(row.is_idle ? 0.0 : row.idle_usd)},
          {"gpuEfficiency", Num(row.efficiency)},
          {"gpuAllocation",
           {{"gpuModel", nullptr},
            {"isGPUShared", nullptr},
            {"gpuUsageAverage", Num(usage)},
            {"gpuRequestAverage", Num(count)}}},
          {"gpuEffectiveCost", Num(row.effective_usd)},
          {"gpuWasteCost", Num(row.waste_usd)},
          {"gpuUnmeasuredHours", Num(row.unmeasured_gpu_hours)},
          {"totalCost", Num(cost)},
          {"totalEfficiency", Num(row.efficiency)},
      };
    }
    data.push_back(std::move(set));
  }
  return ApiResponse{200, json{{"code", 200}, {"data", std::move(data)}}.dump(
                              -1, ' ', false, json::error_handler_t::replace)};
}

}  // namespace gpucost::serve
