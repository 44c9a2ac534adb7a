// `gpucost alerts`: evaluates the built-in alert rules (docs/alerts.md) over the same inputs and
// prices as `gpucost report`, at the end of the data, prints the firing alerts and the team
// budget table, and optionally sends the alerts to an Alertmanager or a webhook. Exit status: 0
// none firing, 1 some firing, 2 bad flags, bad input or a failed send.
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "alerts/alert_sink.h"
#include "alerts/alertmanager.h"
#include "alerts/budgets.h"
#include "alerts/evaluator.h"
#include "alerts/render.h"
#include "chargeback/period.h"
#include "cli/commands.h"
#include "cli/every_flag.h"
#include "cli/format_flag.h"
#include "cli/input_flags.h"
#include "cli/price_flags.h"
#include "core/log.h"
#include "core/redact.h"
#include "core/strings.h"
#include "pipeline/report_pipeline.h"
#include "pricing/price_fn.h"

namespace gpucost::cli {
namespace {

struct AlertsFlags {
  InputFlags input;
  std::string month;
  std::string window;
  std::string step = "60s";
  PriceOptions price;
  std::string format = "text";
  std::string budgets;
  std::map<std::string, std::string> settings;  // flag name -> text, "" when not given
  std::string alertmanager;
  std::string webhook;
  std::string receiver = "gpucost";
  std::string resolve_after = "1h";
  std::string post_timeout = "10s";
};

Result<alerts::AlertSettings> Settings(const AlertsFlags& flags) {
  alerts::AlertSettings s;
  for (const auto& [name, text] : flags.settings) {
    if (!text.empty()) GPUCOST_RETURN_IF_ERROR(alerts::SetAlertSetting(s, name, text));
  }
  return s;
}

Status Send(const AlertsFlags& flags, const alerts::AlertReport& report) {
  if (flags.alertmanager.empty() && flags.webhook.empty()) return Status::Ok();
  if (report.alerts.empty()) {
    LogInfo("no alert firing: nothing sent");
    return Status::Ok();
  }
  GPUCOST_ASSIGN_OR_RETURN(Duration resolve_after, ParseDuration(flags.resolve_after));
  GPUCOST_ASSIGN_OR_RETURN(Duration timeout, ParseDuration(flags.post_timeout));
  if (resolve_after.count() <= 0 || timeout.count() <= 0) {
    return Status::InvalidArgument("--resolve-after and --post-timeout must be positive");
  }
  if (!flags.alertmanager.empty()) {
    // Alerts stay active this long after the later of now and the data's end, unless sent again.
    const Instant ends = std::max(SystemClock().Now(), report.as_of) + resolve_after;
    GPUCOST_RETURN_IF_ERROR(
        alerts::PostJson(alerts::AlertmanagerAlertsUrl(flags.alertmanager),
                         alerts::AlertmanagerPayload(report.alerts, ends, ""), timeout));
    LogInfo(StrCat("sent ", report.alerts.size(), " alerts to ", RedactUri(flags.alertmanager)));
  }
  if (!flags.webhook.empty()) {
    GPUCOST_RETURN_IF_ERROR(alerts::PostJson(
        flags.webhook, alerts::WebhookPayload(report.alerts, flags.receiver, ""), timeout));
    LogInfo(StrCat("sent ", report.alerts.size(), " alerts to ", RedactUri(flags.webhook)));
  }
  return Status::Ok();
}

// True when some alert fires.
Result<bool> Run(const AlertsFlags& flags) {
  GPUCOST_ASSIGN_OR_RETURN(alerts::AlertSettings cfg, Settings(flags));
  GPUCOST_ASSIGN_OR_RETURN(alerts::AlertFormat format, alerts::ParseAlertFormat(flags.format));
  std::optional<alerts::BudgetFile> budgets;
  if (!flags.budgets.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(budgets, alerts::LoadBudgets(flags.budgets));
  }
  if (!flags.month.empty() && !flags.window.empty()) {
    return Status::InvalidArgument("give either --month or --window, not both");
  }
  std::optional<Window> window;
  if (!flags.month.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(chargeback::Period month, chargeback::ParseMonth(flags.month));
    window = month.window;
  } else if (!flags.window.empty()) {
    GPUCOST_ASSIGN_OR_RETURN(window, ParseWindow(flags.window));
  }
  GPUCOST_ASSIGN_OR_RETURN(ReportSettings settings, AccumulatedSettings(flags.step, "team"));
  GPUCOST_ASSIGN_OR_RETURN(PriceFn price, MakePriceFn(flags.price));

  InputFlags input = flags.input;
  // The notebook rule reads the pod label notebook-name; keep it when labels are allow-listed.
  if (!input.label_allowlist.empty()) input.label_allowlist += ",notebook-name";
  GPUCOST_ASSIGN_OR_RETURN(LoadedInput loaded, LoadInput(input, window, settings.step));
  const LoadedTimeline& timeline = loaded.timeline;
  // The rules are evaluated at the newest data: the end of the window, or of the samples when
  // they end first.
  const Instant as_of =
      std::clamp(timeline.span.end, timeline.window.start, timeline.window.end);
  if (as_of <= timeline.window.start) {
    return Status::InvalidArgument("the input has no samples in the window");
  }
  ApplyInput(loaded, settings);  // with --ledger: its records and step
  settings.window = Window{timeline.window.start, as_of};
  alerts::AlertSink sink(timeline.inventory,
                         alerts::AlertRun{settings.window, settings.step, cfg});
  GPUCOST_ASSIGN_OR_RETURN(ReportRun run, RunReport(timeline, price, settings, &sink));
  PrintWarnings(timeline, run.summary, flags.input.max_warnings);
  const alerts::AlertReport report =
      alerts::Evaluate(sink, timeline.usage, budgets ? &*budgets : nullptr);
  alerts::RenderAlerts(report, cfg, format, std::cout);
  std::cout.flush();
  GPUCOST_RETURN_IF_ERROR(Send(flags, report));
  return !report.alerts.empty();
}

}  // namespace

void AddAlertsCommand(CLI::App& app, int& exit_code) {
  auto f = std::make_shared<AlertsFlags>();
  CLI::App* cmd = app.add_subcommand(
      "alerts",
      "Evaluate the built-in alert rules (idle GPUs, idle notebooks, spot ratio, efficiency, "
      "budgets, unknown prices, missing telemetry) at the end of the data; print and send them");
  cmd->add_option("--month", f->month,
                  "Calendar month in UTC, YYYY-MM: the data evaluated (to its end or the "
                  "newest sample)");
  cmd->add_option("--window", f->window,
                  "START,END as RFC 3339 or unix seconds instead of --month (default: the "
                  "input's span)")
      ->check(WindowValue());
  cmd->add_option("--step", f->step, "Attribution step, e.g. 60s, 5m, 1h")->capture_default_str();
  AddFormatOption(*cmd, f->format, {"text", "json"});
  cmd->add_option("--budgets", f->budgets,
                  "YAML file of monthly team budgets in USD (budgets: {team: USD}, default: USD)");
  for (const alerts::SettingDef& d : alerts::AlertSettingDefs()) {
    cmd->add_option(StrCat("--", d.name), f->settings[std::string(d.name)], std::string(d.help))
        ->default_str(std::string(d.default_text));
  }
  cmd->add_option(
      "--alertmanager", f->alertmanager,
      "Send firing alerts to this Alertmanager (API v2), e.g. http://alertmanager:9093");
  cmd->add_option("--webhook", f->webhook,
                  "POST firing alerts to this URL as Alertmanager's webhook payload (version 4)");
  cmd->add_option("--receiver", f->receiver, "The receiver named in the webhook payload")
      ->capture_default_str();
  cmd->add_option("--resolve-after", f->resolve_after,
                  "Sent alerts resolve this long after now unless sent again (endsAt)")
      ->capture_default_str();
  cmd->add_option("--post-timeout", f->post_timeout, "Time limit of each send")
      ->capture_default_str();
  AddInputFlags(*cmd, f->input);
  AddProgressFlags(*cmd, f->input.progress);
  AddPriceFlags(*cmd, f->price);
  AddTimelineFlags(*cmd, f->input);
  cmd->footer(
      "Money without a price is unknown, never $0. Exit status: 0 when no alert fires, 1 when "
      "some fire, 2 on bad flags, bad input or a failed send.");
  cmd->callback([&exit_code, f, cmd] {
    const Status refused = RefuseStepWithLedger(*cmd);
    const Result<bool> firing = refused.ok() ? Run(*f) : Result<bool>(refused);
    if (!firing.ok()) {
      LogError(firing.status().ToString());
      exit_code = 2;
      return;
    }
    exit_code = *firing ? 1 : 0;
  });
}

}  // namespace gpucost::cli
