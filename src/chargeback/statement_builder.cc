#include "chargeback/statement_builder.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/strings.h"

namespace gpucost::chargeback {
namespace {

constexpr char kSep = '\x1f';
constexpr double kRateKeyScale = 1e6;  // rates equal to the micro-dollar share a line

// Unknown capacity types sort after the known ones.
std::tuple<bool, const std::string&> CapacityOrder(const std::string& capacity_type) {
  return {capacity_type.empty(), capacity_type};
}

}  // namespace

StatementBuilder::StatementBuilder(Period period, ChargebackSettings settings)
    : period_(std::move(period)), settings_(settings) {}

StatementBuilder::Key StatementBuilder::Intern(const ChargeLabels& l) {
  const std::string id =
      StrCat(l.team, kSep, l.namespace_name, kSep, l.workload, kSep, l.workload_kind, kSep,
             l.gpu_model, kSep, l.capacity_type, kSep, static_cast<int>(l.unit_kind));
  if (auto it = key_ids_.find(id); it != key_ids_.end()) return it->second;

  auto [team_it, new_team] = team_ids_.try_emplace(l.team, static_cast<uint32_t>(teams_.size()));
  if (new_team) {
    TeamAcc& t = teams_.emplace_back();
    t.name = l.team;
    t.days.resize(static_cast<size_t>(period_.day_count()));
  }
  TeamAcc& team = teams_[team_it->second];
  const std::string workload_id = StrCat(l.namespace_name, kSep, l.workload, kSep, l.workload_kind);
  auto [wl_it, new_wl] =
      team.workload_ids.try_emplace(workload_id, static_cast<uint32_t>(team.workloads.size()));
  if (new_wl) team.workloads.push_back({l.namespace_name, l.workload, l.workload_kind, {}});

  KeyInfo info;
  info.team = team_it->second;
  info.workload = wl_it->second;
  info.gpu_model = l.gpu_model;
  info.capacity_type = l.capacity_type;
  info.unit_kind = l.unit_kind;
  info.spot = l.capacity_type == "spot";
  const Key key = static_cast<Key>(keys_.size());
  keys_.push_back(std::move(info));
  key_ids_.emplace(id, key);
  return key;
}

uint32_t StatementBuilder::LineFor(KeyInfo& key, int64_t rate_key) {
  for (const auto& [rate, line] : key.lines) {
    if (rate == rate_key) return line;
  }
  TeamAcc& team = teams_[key.team];
  const std::string id = StrCat(key.gpu_model, kSep, key.capacity_type, kSep, rate_key, kSep,
                                static_cast<int>(key.unit_kind));
  auto [it, added] = team.line_ids.try_emplace(id, static_cast<uint32_t>(team.lines.size()));
  if (added) team.lines.push_back({key.gpu_model, key.capacity_type, rate_key, {}, key.unit_kind});
  key.lines.emplace_back(rate_key, it->second);
  return it->second;
}

void StatementBuilder::Add(Key key, const ChargeAmounts& a) {
  if (!(a.gpu_hours > 0)) return;
  KeyInfo& info = keys_[key];
  const int64_t rate_key =
      a.priced() ? std::llround(a.allocated_usd / a.gpu_hours * kRateKeyScale) : -1;
  const uint32_t line = LineFor(info, rate_key);
  const bool idle = a.measured() && a.utilization() < settings_.idle_threshold;
  TeamAcc& team = teams_[info.team];
  team.lines[line].sums.Add(a, idle, info.spot, !info.capacity_type.empty());
  team.workloads[info.workload].sums.Add(a, idle, info.spot, !info.capacity_type.empty());
  if (!team.days.empty()) {
    team.days[static_cast<size_t>(period_.DayOf(a.start))].Add(a, idle, info.spot,
                                                               !info.capacity_type.empty());
  }
}

std::vector<std::string> StatementBuilder::Teams() const {
  std::vector<std::string> out;
  for (const TeamAcc& t : teams_) out.push_back(t.name);
  std::sort(out.begin(), out.end());
  return out;
}

Statement StatementBuilder::Build(const TeamAcc& team) const {
  Statement s;
  s.team = team.name;
  ChargeSums all;
  for (const LineAcc& acc : team.lines) {
    all.Merge(acc.sums);
    StatementLine& line = s.lines.emplace_back();
    line.gpu_model = acc.gpu_model;
    line.capacity_type = acc.capacity_type;
    line.unit_kind = acc.unit_kind;
    line.totals = acc.sums.Totals();
    if (acc.rate_key >= 0) {
      line.rate_usd_per_gpu_hour = static_cast<double>(acc.rate_key) / kRateKeyScale;
    }
  }
  s.totals = all.Totals();
  std::sort(s.lines.begin(), s.lines.end(), [](const StatementLine& a, const StatementLine& b) {
    // Unknown rates (NaN) sort last within their model and capacity type.
    const double ra = a.priced() ? a.rate_usd_per_gpu_hour : INFINITY;
    const double rb = b.priced() ? b.rate_usd_per_gpu_hour : INFINITY;
    return std::tuple(a.gpu_model, CapacityOrder(a.capacity_type), ra, a.unit_kind) <
           std::tuple(b.gpu_model, CapacityOrder(b.capacity_type), rb, b.unit_kind);
  });
  for (const WorkloadAcc& acc : team.workloads) {
    s.workloads.push_back({acc.namespace_name, acc.workload, acc.workload_kind, acc.sums.Totals()});
  }
  std::sort(s.workloads.begin(), s.workloads.end(),
            [](const WorkloadUsage& a, const WorkloadUsage& b) {
              return std::tuple(-a.totals.allocated_usd, -a.totals.gpu_hours, a.workload,
                                a.namespace_name, a.workload_kind) <
                     std::tuple(-b.totals.allocated_usd, -b.totals.gpu_hours, b.workload,
                                b.namespace_name, b.workload_kind);
            });
  const Instant first = period_.first_day();
  for (size_t d = 0; d < team.days.size(); ++d) {
    s.days.push_back({first + std::chrono::days(static_cast<int64_t>(d)), team.days[d].Totals()});
  }
  return s;
}

Result<StatementSet> StatementBuilder::Finish(const std::vector<std::string>& teams) const {
  StatementSet set;
  set.period = period_;
  set.settings = settings_;
  std::vector<std::string> wanted = teams.empty() ? Teams() : teams;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  for (const std::string& name : wanted) {
    auto it = team_ids_.find(name);
    if (it == team_ids_.end()) {
      const std::vector<std::string> known = Teams();
      return Status::NotFound(StrCat("no GPU usage for team \"", name, "\" in the period (teams: ",
                                     known.empty() ? "none" : Join(known, ", "), ")"));
    }
    set.statements.push_back(Build(teams_[it->second]));
  }
  return set;
}

}  // namespace gpucost::chargeback
