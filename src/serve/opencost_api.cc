#include "serve/opencost_api.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/log.h"
#include "core/strings.h"
#include "ledger/ledger.h"
#include "ledger/ledger_types.h"
#include "pipeline/input.h"
#include "pipeline/report_pipeline.h"
#include "serve/api_errors.h"
#include "serve/opencost_filter.h"
#include "serve/opencost_grouping.h"

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

// 00:00 UTC of the Sunday that starts `day`'s week (OpenCost's weeks); 1970-01-01 was a Thursday.
Instant WeekStart(Instant day) {
  const int64_t day_index = floor<days>(day).time_since_epoch().count();
  return day - days((day_index + 4) % 7);
}

// The first and last step each row had GPU hours in, by the row's values joined with
// kKeySeparator.
using StepSpans = std::unordered_map<std::string, std::pair<int64_t, int64_t>>;
constexpr std::string_view kKeySeparator = "\x1f";

StepSpans RunningSteps(const Inventory& inventory, const std::vector<Dimension>& by,
                       const std::vector<CostRecord>& records) {
  StepSpans spans;
  // Every record of a (unit, holder) pair belongs to the same row: its values once per pair.
  std::unordered_map<uint64_t, std::pair<int64_t, int64_t>*> pairs;
  std::vector<std::string> values(by.size());
  for (const CostRecord& r : records) {
    if (!(r.gpu_hours > 0)) continue;
    const uint64_t pair = (uint64_t{r.unit} << 32) | r.holder;
    auto [it, fresh] = pairs.try_emplace(pair, nullptr);
    if (fresh) {
      for (size_t i = 0; i < by.size(); ++i) {
        values[i] = r.is_idle() ? IdleDimensionValue(inventory, by[i], r.unit)
                                : DimensionValue(inventory, by[i], r.unit, r.holder);
      }
      auto span = spans.try_emplace(Join(values, kKeySeparator), std::pair(r.step, r.step)).first;
      it->second = &span->second;
    }
    it->second->first = std::min(it->second->first, r.step);
    it->second->second = std::max(it->second->second, r.step);
  }
  return spans;
}

// Adds a value that may be unknown (NaN) to a sum that is unknown until something known is
// added.
void AddKnown(double& sum, double v) {
  if (std::isnan(v)) return;
  sum = std::isnan(sum) ? v : sum + v;
}

// One OpenCost allocation: the report rows that fall in it, summed, and the properties they
// all share (OpenCost keeps an aggregate's common properties).
struct OpenCostTotals {
  bool is_idle = false;
  std::map<std::string, std::string> properties;
  std::string gpu_model;
  double gpu_hours = 0;
  double cost_usd = NAN;
  double idle_received_usd = NAN;
  double effective_usd = NAN;
  double waste_usd = NAN;
  double unmeasured_gpu_hours = 0;
  double activity_gpu_hours = 0;
  bool running = false;  // start and end are set: the steps it had GPU hours in
  Instant start;
  Instant end;

  void Add(const ReportRow& row, const OpenCostGrouping::Allocation& a, bool first) {
    if (first) {
      is_idle = row.is_idle;
      properties = a.properties;
      gpu_model = a.gpu_model;
    } else {
      std::erase_if(properties, [&a](const auto& p) {
        const auto it = a.properties.find(p.first);
        return it == a.properties.end() || it->second != p.second;
      });
      if (gpu_model != a.gpu_model) gpu_model.clear();
    }
    gpu_hours += row.gpu_hours;
    AddKnown(cost_usd, row.is_idle ? row.idle_usd : row.allocated_usd);
    if (!row.is_idle) AddKnown(idle_received_usd, row.idle_usd);
    AddKnown(effective_usd, row.effective_usd);
    AddKnown(waste_usd, row.waste_usd);
    unmeasured_gpu_hours += row.unmeasured_gpu_hours;
    activity_gpu_hours += row.activity_gpu_hours;
  }

  json ToJson(const std::string& name, const Window& set) const {
    // OpenCost's start, end and minutes are the allocation's own running time in the set, and
    // its counts averages over that time (kubectl-cost's monthly rate is cost x 43200 / minutes).
    const Instant from = running ? start : set.start;
    const Instant to = running ? end : set.end;
    const double minutes = std::chrono::duration<double, std::ratio<60>>(to - from).count();
    const double hours = minutes / 60;
    const double count = hours > 0 ? gpu_hours / hours : NAN;
    const bool measured = !is_idle && unmeasured_gpu_hours < gpu_hours;
    const double usage = measured && hours > 0 ? activity_gpu_hours / hours : NAN;
    // Unknown effective cost leaves efficiency unknown (NaN divides to NaN).
    const double efficiency = !is_idle && cost_usd > 0 ? effective_usd / cost_usd : NAN;
    json props = json::object();
    json labels = json::object();
    for (const auto& [key, value] : properties) {
      if (key.starts_with("label:")) {
        labels[key.substr(6)] = value;
      } else {
        props[key] = value;
      }
    }
    if (!labels.empty()) props["labels"] = std::move(labels);
    return {
        {"name", name},
        {"properties", std::move(props)},
        {"window", {{"start", FormatRfc3339(set.start)}, {"end", FormatRfc3339(set.end)}}},
        {"start", FormatRfc3339(from)},
        {"end", FormatRfc3339(to)},
        {"minutes", Num(minutes)},
        {"gpuCount", Num(count)},
        {"gpuHours", Num(gpu_hours)},
        {"gpuCost", Num(cost_usd)},
        {"gpuCostAdjustment", 0},
        {"gpuCostIdle", is_idle ? json(0) : Num(idle_received_usd)},
        {"gpuEfficiency", Num(efficiency)},
        {"gpuRequestAverage", Num(count)},
        {"gpuUsageAverage", Num(usage)},
        {"gpuAllocation",
         {{"gpuModel", gpu_model},
          {"isGPUShared", nullptr},
          {"gpuUsageAverage", Num(usage)},
          {"gpuRequestAverage", Num(count)}}},
        {"gpuEffectiveCost", Num(effective_usd)},
        {"gpuWasteCost", Num(waste_usd)},
        {"gpuUnmeasuredHours", Num(unmeasured_gpu_hours)},
        {"totalCost", Num(cost_usd)},
    };
  }
};

// The start of the period after the one `t` is in: UTC hours, days, weeks (from Sunday, as
// OpenCost's) or calendar months.
Instant NextPeriod(Instant t, std::string_view period) {
  if (period == "hour") {
    return std::chrono::time_point_cast<Duration>(floor<std::chrono::hours>(t)) +
           std::chrono::hours(1);
  }
  const Instant day = DayStart(t);
  if (period == "day") return day + days(1);
  if (period == "week") return WeekStart(day) + days(7);
  const year_month_day ymd{floor<days>(day)};
  const year_month_day next =
      ymd.year() / ymd.month() / std::chrono::day(1) + std::chrono::months(1);
  return std::chrono::time_point_cast<Duration>(sys_days{next});
}

// Windows relative to now fall between the ledger's steps: `w` rounded down onto its step;
// nullopt when nothing is left of it.
Result<std::optional<Window>> OntoLedgerSteps(const std::string& ledger_path, Window w) {
  GPUCOST_ASSIGN_OR_RETURN(std::unique_ptr<ledger::Ledger> l, ledger::Ledger::Open(ledger_path));
  GPUCOST_ASSIGN_OR_RETURN(const Duration newest, l->NewestStep());
  if (newest.count() <= 0) return std::optional<Window>(w);
  const int64_t ms = newest.count();
  const auto down = [ms](Instant t) {
    const int64_t v = UnixMs(t);
    return InstantFromUnixMs(v - ((v % ms) + ms) % ms);
  };
  w = Window{down(w.start), down(w.end)};
  if (w.end <= w.start) return std::optional<Window>();
  return std::optional<Window>(w);
}

ApiResponse OpenCostFailure(int status, std::string_view message) {
  return ApiResponse{status, json{{"code", status}, {"message", message}}.dump(
                                 -1, ' ', false, json::error_handler_t::replace)};
}

// The ledger's failures as serve's other API answers them (api_errors.h).
ApiResponse LedgerFailure(const Status& s, const std::string& ledger_path, std::string_view path) {
  const ApiError e = ApiErrorOf(s, ledger_path);
  if (e.status >= 500 && !ledger::IsEmptyLedger(s)) {
    LogError(StrCat("gpucost serve: ", path, ": ", s.ToString()));
  }
  ApiResponse r = OpenCostFailure(e.status, e.message);
  r.cause = s.code();
  return r;
}

bool Flag(const std::function<std::string(const char*)>& param, const char* name) {
  const std::string v = param(name);
  return v == "true" || v == "1";
}

}  // namespace

namespace {

Duration OpenCostUnit(char unit) {
  switch (unit) {
    case 'm':
      return std::chrono::minutes(1);
    case 'h':
      return std::chrono::hours(1);
    case 'd':
      return days(1);
    default:
      return days(7);
  }
}

// OpenCost's duration units: minutes, hours, days and weeks ("45m", "24h", "7d", "2w"), of at
// most 200 years: bounded before it is multiplied ("30500568905w" wrapped around to none).
std::optional<std::pair<int64_t, char>> OpenCostDuration(std::string_view text) {
  if (text.size() < 2 || text.size() > 12) return std::nullopt;
  const char unit = text.back();
  if (unit != 'm' && unit != 'h' && unit != 'd' && unit != 'w') return std::nullopt;
  int64_t n = 0;
  for (const char c : text.substr(0, text.size() - 1)) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  if (n > days(366 * 200) / OpenCostUnit(unit)) return std::nullopt;
  return std::make_pair(n, unit);
}

}  // namespace

Result<Window> ParseOpenCostWindow(std::string_view text, Instant now) {
  const Instant today = DayStart(now);
  if (text == "today") return Window{today, today + days(1)};
  if (text == "yesterday") return Window{today - days(1), today};
  const Instant week = WeekStart(today);
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
  // "7d": today and the 6 days before it, whole UTC days (to tomorrow 00:00), as OpenCost counts
  // "the past 7 days"; "24h": the 24 hours to now; "24h offset 48h": those 24 hours, 48 hours ago.
  const size_t offset_at = text.find(" offset ");
  const std::optional<std::pair<int64_t, char>> length =
      OpenCostDuration(text.substr(0, offset_at));
  const std::optional<std::pair<int64_t, char>> offset =
      offset_at == std::string_view::npos
          ? std::optional<std::pair<int64_t, char>>(std::make_pair(0, 'm'))
          : OpenCostDuration(text.substr(offset_at + 8));
  if (!length || !offset || length->first <= 0) {
    return Status::InvalidArgument(StrCat("window \"", text,
                                          "\": expected START,END, a duration (45m, 24h, 7d, "
                                          "2w; at most 200 years), one with an offset (\"24h "
                                          "offset 48h\"), today, yesterday, week, lastweek, "
                                          "month or lastmonth"));
  }
  const Duration span = length->first * OpenCostUnit(length->second);
  if (offset_at != std::string_view::npos) {
    const Instant end = now - offset->first * OpenCostUnit(offset->second);
    return Window{end - span, end};
  }
  if (length->second == 'd' || length->second == 'w') {
    return Window{DayStart(now - span) + days(1), today + days(1)};
  }
  return Window{now - span, now};
}

ApiResponse OpenCostAllocation(const std::string& ledger_path,
                               const std::function<std::string(const char*)>& param, Instant now) {
  const auto fail = OpenCostFailure;
  const auto failed = [&ledger_path](const Status& s) {
    return LedgerFailure(s, ledger_path, "/allocation");
  };
  if (param("window").empty()) return fail(400, "window is required");
  Result<Window> window = ParseOpenCostWindow(param("window"), now);
  if (!window.ok()) return fail(400, window.status().message());
  Result<AllocationFilter> filter = AllocationFilter::Parse(param("filter"));
  if (!filter.ok()) return fail(400, filter.status().message());
  const OpenCostGrouping grouping = OpenCostGrouping::Parse(param("aggregate"));
  ReportSettings base;
  base.by = grouping.dimensions();
  base.accumulate = true;
  // As OpenCost: idle exists only with includeIdle, so shareIdle alone shares nothing.
  const bool include_idle = Flag(param, "includeIdle");
  if (include_idle && Flag(param, "shareIdle")) base.idle.policy = IdlePolicy::kProportional;
  if (Flag(param, "idleByNode")) base.idle.scope = IdleScope::kNode;

  // The sets: one per step (default, and with accumulate=true, the whole window), or one per
  // period with accumulate (or accumulateBy) = hour, day, week or month.
  const std::string period =
      ToLower(param("accumulateBy").empty() ? param("accumulate") : param("accumulateBy"));
  const bool by_period =
      period == "hour" || period == "day" || period == "week" || period == "month";
  if (window->end <= window->start) return fail(400, "the window is empty");
  Duration step = window->end - window->start;
  if (!param("step").empty() && !Flag(param, "accumulate") && !by_period) {
    Result<Duration> s = ParseDuration(param("step"));
    if (!s.ok() || s->count() <= 0) return fail(400, "step: expected a duration (1h, 1d)");
    // A step past the window is one set: never added past the largest instant.
    step = std::min(*s, step);
  }
  if (const int64_t sets = (window->end - window->start) / step; sets > 1000) {
    return fail(400, StrCat("step ", param("step"), " cuts the window into ", sets,
                            " sets, at most 1000: a longer step or a shorter window"));
  }
  Result<std::optional<Window>> rounded = OntoLedgerSteps(ledger_path, *window);
  if (!rounded.ok()) return failed(rounded.status());
  if (!*rounded) return fail(400, "window shorter than the ledger's step");
  window = **rounded;
  std::vector<Window> sets;
  if (by_period) {
    for (Instant t = window->start; t < window->end;) {
      const Instant next = std::min(window->end, NextPeriod(t, period));
      sets.push_back(Window{t, next});
      if (sets.size() > 1000) {
        return fail(400, StrCat("the window holds more than 1000 ", period,
                                "s, at most 1000: a shorter window or a longer period"));
      }
      t = next;
    }
  } else {
    for (Instant t = window->start; t < window->end; t += step) {
      sets.push_back(Window{t, std::min(window->end, t + step)});
    }
  }

  json data = json::array();
  for (const Window& w : sets) {
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
    const StepSpans spans = input->records
                                ? RunningSteps(input->timeline.inventory, base.by, *input->records)
                                : StepSpans();
    std::map<std::string, OpenCostTotals> allocations;
    for (const ReportRow& row : run->report.rows) {
      if (row.is_idle && !include_idle) continue;
      OpenCostGrouping::Allocation a = grouping.AllocationOf(row.values, row.is_idle);
      auto [it, fresh] = allocations.try_emplace(a.name);
      OpenCostTotals& t = it->second;
      t.Add(row, a, fresh);
      const auto span = spans.find(Join(row.values, kKeySeparator));
      if (span != spans.end()) {
        const Instant first = settings.window.start + settings.step * span->second.first;
        const Instant last =
            std::min(w.end, settings.window.start + settings.step * (span->second.second + 1));
        t.start = t.running ? std::min(t.start, first) : first;
        t.end = t.running ? std::max(t.end, last) : last;
        t.running = true;
      }
    }
    for (auto& [name, t] : allocations) set[name] = t.ToJson(name, w);
    data.push_back(std::move(set));
  }
  return ApiResponse{200,
                     json{{"code", 200}, {"status", "success"}, {"data", std::move(data)}}.dump(
                         -1, ' ', false, json::error_handler_t::replace)};
}

ApiResponse OpenCostAutocomplete(const std::string& ledger_path,
                                 const std::function<std::string(const char*)>& param,
                                 Instant now) {
  const auto fail = OpenCostFailure;
  const auto failed = [&ledger_path](const Status& s) {
    return LedgerFailure(s, ledger_path, "/allocation/autocomplete");
  };
  const std::string field = param("field");
  std::string label_key;  // label:KEY and label[KEY]
  if (field.starts_with("label:")) label_key = field.substr(6);
  if (field.starts_with("label[") && field.ends_with("]")) {
    label_key = field.substr(6, field.size() - 7);
  }
  static constexpr std::array<std::string_view, 8> kAutocompleteFields = {
      "cluster", "node", "namespace", "controllerKind", "controller", "pod", "container", "label"};
  if (label_key.empty() && std::find(kAutocompleteFields.begin(), kAutocompleteFields.end(),
                                     field) == kAutocompleteFields.end()) {
    return fail(400,
                "field: expected cluster, node, namespace, controllerKind, controller, pod, "
                "container, label or label:KEY");
  }
  size_t limit = SIZE_MAX;
  if (!param("limit").empty()) {
    const std::string& text = param("limit");
    if (text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
      return fail(400, "limit: expected a whole number");
    }
    limit = std::stoul(text);
  }
  Result<Window> window =
      ParseOpenCostWindow(param("window").empty() ? "7d" : param("window"), now);
  if (!window.ok()) return fail(400, window.status().message());
  Result<AllocationFilter> filter = AllocationFilter::Parse(param("filter"));
  if (!filter.ok()) return fail(400, filter.status().message());
  Result<std::optional<Window>> rounded = OntoLedgerSteps(ledger_path, *window);
  if (!rounded.ok()) return failed(rounded.status());
  if (!*rounded) return fail(400, "window shorter than the ledger's step");

  std::set<std::string> values;
  InputOptions in;
  in.ledger = ledger_path;
  Result<LoadedInput> input = LoadInput(in, **rounded, Duration(0));
  if (!input.ok() && input.status().message().find("no cost records") == std::string_view::npos) {
    return failed(input.status());
  }
  if (input.ok() && input->records) {
    const Inventory& inv = input->timeline.inventory;
    std::unordered_set<uint64_t> seen;  // (unit, holder) pairs
    for (const CostRecord& r : *input->records) {
      if (!seen.insert((uint64_t{r.unit} << 32) | r.holder).second) continue;
      if (!filter->Matches(inv, r)) continue;
      const Node& node = inv.nodes[inv.units[r.unit].node];
      const Holder* h = r.is_idle() ? nullptr : &inv.holders[r.holder];
      const auto add = [&values](std::string_view v) {
        if (!v.empty()) values.emplace(v);
      };
      if (field == "cluster") add(h != nullptr ? h->cluster : node.cluster);
      if (field == "node") add(node.name);
      if (h == nullptr) continue;
      const std::string kind = OpenCostControllerKind(h->workload_kind);
      if (field == "namespace") add(h->namespace_name);
      if (field == "controllerKind") add(kind);
      if (field == "controller" && !kind.empty() && !h->workload.empty()) {
        add(kind + ":" + h->workload);
      }
      if (field == "pod") add(h->pod);
      if (field == "container") add(h->container);
      for (const auto& label : h->labels) {
        if (field == "label") add(label.name);
        if (!label_key.empty() && label.name == label_key) add(label.value);
      }
    }
  }
  const std::string search = ToLower(param("search"));
  json data = json::array();
  for (const std::string& v : values) {
    if (data.size() >= limit) break;
    if (search.empty() || ToLower(v).find(search) != std::string::npos) data.push_back(v);
  }
  return ApiResponse{200,
                     json{{"code", 200}, {"status", "success"}, {"data", std::move(data)}}.dump(
                         -1, ' ', false, json::error_handler_t::replace)};
}

}  // namespace gpucost::serve
