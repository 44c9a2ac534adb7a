// Alerts: the built-in rules (docs/alerts.md) evaluated on the ledger over the window, as
// `gpucost alerts --ledger` evaluates them: idle GPUs, idle notebooks, efficiency and spot ratio
// under target, unknown prices, budgets.
import { Alert, alerts, LedgerInfo } from "../api";
import { clusterControl, clusterParam } from "../common";
import { h, message, table, windowControls } from "../dom";
import { instant } from "../format";
import { resolve, windowParam } from "../window";

export async function alertsPage(main: HTMLElement, info: LedgerInfo, params: URLSearchParams): Promise<void> {
  const w = resolve(info, params);
  if (!w) {
    main.replaceChildren(h("h1", {}, "Alerts"), message("The ledger holds no costs yet."));
    return;
  }
  const r = await alerts({ window: windowParam(w), ...clusterParam(params) });
  // On screen the labels that say who (the CSV has them all).
  const WHO = ["team", "namespace", "pod", "node"];
  const all = (a: Alert) => Object.entries(a.labels).map(([k, v]) => `${k}=${v}`).join(", ");
  const who = (a: Alert) => {
    const shown = WHO.filter((k) => a.labels[k]).map((k) => `${k} ${a.labels[k]}`);
    return shown.length ? shown.join(" · ") : all(a);
  };
  main.replaceChildren(
    h("div", { class: "page-head" }, h("h1", {}, "Alerts"),
      h("p", { class: "window", "data-window": windowParam(w) }, instant(r.window.start), " – ", instant(r.as_of), " UTC")),
    h("div", { class: "controls" }, windowControls(params, w), clusterControl(info, params)),
    h("p", { "data-firing": String(r.firing) },
      r.firing === 0 ? "No alert fires over this window." : `${r.firing} ${r.firing === 1 ? "alert fires" : "alerts fire"} at the newest data.`),
    table("Firing", "alerts", [
      { label: "Severity", key: "severity", text: (a: Alert) => a.severity },
      { label: "Alert", key: "alertname", text: (a: Alert) => a.alertname },
      { label: "On", key: "labels", text: who, raw: all },
      { label: "Summary", key: "summary", text: (a: Alert) => a.annotations.summary },
      // What the summary leaves out: over which window a ratio was taken (the rules' last day,
      // not the page's window: a team's efficiency here may differ from the overview's), the
      // target it missed, what to do.
      { label: "Details", key: "description", text: (a: Alert) => a.annotations.description },
    ], r.alerts),
    h("p", { class: "note" }, "Ratios (efficiency, spot share) are over each rule's own window, named in its details, as in `gpucost alerts`; the overview's are over the page's window."),
  );
}
