// Savings: the recommendations `gpucost recommend --ledger` gives over the window (docs/recommend.md),
// each with its dollars a month, what to do, the evidence it rests on and its risk. Savings that
// need a price nobody knows say "unknown", never $0.
import { LedgerInfo, Recommendation, recommendations } from "../api";
import { clusterControl, clusterParam } from "../common";
import { h, kpi, message, table, windowControls } from "../dom";
import { hours, instant, money, percent } from "../format";
import { href } from "../state";
import { resolve, windowParam } from "../window";

function evidence(r: Recommendation): string {
  const e = r.evidence;
  const parts = [`p95 ${percent(e.utilization_p95)}`, `mean ${percent(e.utilization_mean)}`,
    `${hours(e.gpu_hours, 1)} GPU-h held`];
  if (e.idle_gpu_hours > 0) parts.push(`${hours(e.idle_gpu_hours, 1)} idle`);
  if (e.measured_fraction !== null && e.measured_fraction < 1) parts.push(`${percent(e.measured_fraction)} measured`);
  return parts.join(", ");
}

// "12 minutes", "3.5 hours": how much time a window holds.
function span(w: { start: string; end: string }): string {
  const minutes = (Date.parse(w.end) - Date.parse(w.start)) / 60000;
  return minutes < 60 ? `${Math.round(minutes)} minute${Math.round(minutes) === 1 ? "" : "s"}` : `${hours(minutes / 60, 1)} hours`;
}

export async function savingsPage(main: HTMLElement, info: LedgerInfo, params: URLSearchParams): Promise<void> {
  const w = resolve(info, params);
  if (!w) {
    main.replaceChildren(h("h1", {}, "Savings"), message("The ledger holds no costs yet."));
    return;
  }
  const r = await recommendations({ window: windowParam(w), ...clusterParam(params) });
  const known = r.recommendations.length - r.unknown_savings;
  main.replaceChildren(
    h("div", { class: "page-head" }, h("h1", {}, "Savings"),
      h("p", { class: "window", "data-window": windowParam(w) }, instant(r.window.start), " – ", instant(r.window.end), " UTC")),
    h("div", { class: "controls" }, windowControls(params, w), clusterControl(info, params)),
    h("div", { class: "kpis" },
      kpi("Potential savings a month", r.window_too_short ? "not yet" : money(r.monthly_savings_usd), "savings",
        `from ${known} recommendation${known === 1 ? "" : "s"} with known savings`),
      kpi("Recommendations", String(r.recommendations.length), "recommendations",
        r.unknown_savings ? `${r.unknown_savings} with unknown savings (a price is unknown)` : ""),
      kpi("Workloads examined", String(r.workloads), "workloads"),
      kpi("Unmeasured GPU-hours", hours(r.unmeasured_gpu_hours), "unmeasured",
        "GPU-hours without a usage sample: no advice rests on them")),
    r.window_too_short
      ? message(`No recommendation yet: this window holds ${span(r.window)} of data, and monthly savings ` +
        `need at least ${hours(r.min_window_hours, 0)} hour${r.min_window_hours === 1 ? "" : "s"} of evidence.`)
      : r.recommendations.length === 0
      ? message(`No recommendation over this window (idle: utilization under ${percent(r.idle_threshold)}).`)
      : table("Recommendations", "recommendations", [
        { label: "Saves / month", key: "monthly_savings_usd", num: true,
          text: (x: Recommendation) => x.monthly_savings_usd === null ? "unknown" : money(x.monthly_savings_usd),
          raw: (x: Recommendation) => x.monthly_savings_usd },
        { label: "Of / month", key: "monthly_cost_usd", num: true,
          text: (x: Recommendation) => money(x.monthly_cost_usd), raw: (x: Recommendation) => x.monthly_cost_usd },
        { label: "Kind", key: "kind", text: (x: Recommendation) => x.kind },
        { label: "Workload", key: "workload", text: (x: Recommendation) =>
          `${x.namespace}/${x.workload ?? `${x.jobs.length} Job${x.jobs.length === 1 ? "" : "s"}`}`,
          // The workload's pods; one-off Jobs grouped per namespace: the namespace's workloads.
          link: (x: Recommendation) => href("drill", { ...Object.fromEntries(params), team: x.team, namespace: x.namespace, workload: x.workload ?? "" }) },
        { label: "Team", key: "team", text: (x: Recommendation) => x.team },
        { label: "Do", key: "action", text: (x: Recommendation) => x.action },
        { label: "Evidence", key: "evidence", text: evidence,
          raw: (x: Recommendation) => JSON.stringify(x.evidence) },
        { label: "Risk", key: "risk", text: (x: Recommendation) => `${x.risk}: ${x.risk_note}` },
      ], r.recommendations),
  );
}
