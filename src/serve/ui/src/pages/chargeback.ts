// Chargeback: each team's cost for a calendar month (UTC), and a team's statement — its lines by
// GPU model and capacity type and its workloads — as a page to print or save as PDF, every table
// as CSV.
import { LedgerInfo, Report, report, ReportRow } from "../api";
import { clusterParam, groupName, hoursWords, markIdleUnpriced, moneyColumns, moneyOf, reportHoursWords, totalRow } from "../common";
import { h, message, present, select, table } from "../dom";
import { hours, instant, money, percent, roundUnits } from "../format";
import { href, update } from "../state";

function months(info: LedgerInfo): string[] {
  if (!info.window) return [];
  const out: string[] = [];
  const end = new Date(Date.parse(info.window.end) - 1);
  let d = new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth(), 1));
  const lo = Date.parse(info.window.start);
  // A month is offered while it ends after the ledger starts: one that ends at its first step
  // holds nothing of it.
  while (Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) > lo && out.length < 36) {
    out.push(d.toISOString().slice(0, 7));
    d = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1));
  }
  return out;
}

// A month the ledger covers only part of is charged for that part: said, as `gpucost chargeback`
// says it, so that a statement of four days does not pass for a month's.
function coverageNote(r: Report, month: string): HTMLElement | null {
  const c = r.covered;
  const [start, end] = month.split(",").map((t) => Date.parse(t));
  if (!c || (Date.parse(c.start) <= start && Date.parse(c.end) >= end)) return null;
  return h("p", { class: "window-note", "data-coverage": "" }, c.hours > 0
    ? `The ledger's data covers ${instant(c.start)} to ${instant(c.end)} UTC of this month only; the rest is not charged.`
    : "The ledger has no data in this month: nothing is charged.");
}

function monthWindow(m: string): string {
  const [y, mo] = m.split("-").map(Number);
  const a = new Date(Date.UTC(y, mo - 1, 1)).toISOString().replace(/\.\d{3}Z$/, "Z");
  const b = new Date(Date.UTC(y, mo, 1)).toISOString().replace(/\.\d{3}Z$/, "Z");
  return a + "," + b;
}

// Each amount is its exact value rounded once, the total too (docs/report.md, "Rounding"): where
// the lines as shown do not add up to the total shown, the difference is a rounding line, as
// `gpucost chargeback` prints it.
function roundingNote(lines: ReportRow[], total: number | null): HTMLElement | null {
  if (total === null) return null;
  const shown = lines.reduce((a, x) => a + roundUnits(x.allocated_usd ?? 0, 2), 0);
  const diff = roundUnits(total, 2) - shown;
  if (diff === 0) return null;
  return h("p", { class: "note", "data-rounding": "" },
    `Rounding: ${money(diff / 100)} (the lines' allocated amounts as shown add up to ${money(shown / 100)}; `,
    `the amount due is their exact sum, rounded once)`);
}

export async function chargeback(main: HTMLElement, info: LedgerInfo, params: URLSearchParams): Promise<void> {
  const all = months(info);
  if (all.length === 0) {
    main.replaceChildren(h("h1", {}, "Chargeback"), message("The ledger holds no costs yet."));
    return;
  }
  const asked = params.get("month");
  const month = all.includes(asked ?? "") ? asked! : all[0];
  // A month the ledger holds nothing of is said, not silently replaced.
  const fellBack = asked !== null && asked !== "" && asked !== month
    ? h("p", { class: "note", "data-month-note": "" }, `The ledger holds nothing of ${asked}: showing ${month}, its newest month.`)
    : null;
  const team = params.get("team");
  const win = monthWindow(month);
  const base = { window: win, ...clusterParam(params) };
  const head = h("div", { class: "controls no-print" },
    select("month", "Month", month, all.map((m): [string, string] => [m, m]), (v) => update({ month: v })),
    h("button", { type: "button", onclick: () => window.print() }, "Print / save as PDF"));

  if (!team) {
    const r = await report({ ...base, by: "team" });
    const teams = r.rows.filter((x) => x.team !== "__idle__");
    main.replaceChildren(...present(
      h("div", { class: "page-head" }, h("h1", {}, `Chargeback ${month}`),
        h("p", { class: "window", "data-window": win }, "Calendar month, UTC · each team's allocated cost")),
      head, fellBack, coverageNote(r, win),
      table(`Teams, ${month}`, `chargeback-${month}`,
        [{ label: "Team", key: "team", text: (x: ReportRow) => String(x.team),
          link: (x: ReportRow) => href("chargeback", { month, team: String(x.team), cluster: params.get("cluster") ?? "" }) },
          ...moneyColumns(reportHoursWords(r), r.totals.unpriced_gpu_hours > 1e-9)],
        teams, totalRow(teams, "team")),
      h("p", { class: "note" }, "Idle capacity nobody held this month: ",
        h("strong", { "data-idle": "" }, moneyOf(r.totals.idle_usd, { unpriced_gpu_hours: markIdleUnpriced(r.rows, ["team"]) })), " · total cost ",
        h("strong", { "data-cost": "" }, moneyOf(r.totals.cost_usd, r.totals))),
    ));
    return;
  }
  const [lines, workloads] = await Promise.all([
    report({ ...base, by: "team,gpu_model,capacity_type,unit_kind" }),
    report({ ...base, by: "team,namespace,workload" }),
  ]);
  const mine = (x: ReportRow) => x.team === team;
  const l = lines.rows.filter(mine);
  const wl = workloads.rows.filter(mine);
  // Hours without a known price are in no amount: none priced is an unknown amount, not $0, and
  // a part unpriced is said beside the amount.
  const priced = l.filter((x) => x.allocated_usd !== null && x.allocated_usd !== undefined);
  const total = priced.length === 0 ? null : priced.reduce((a, x) => a + (x.allocated_usd ?? 0), 0);
  const eff = l.reduce((a, x) => a + (x.effective_usd ?? 0), 0);
  const gh = l.reduce((a, x) => a + x.gpu_hours, 0);
  const unpriced = l.reduce((a, x) => a + (x.unpriced_gpu_hours ?? 0), 0);
  // GPU-hours, or accelerator-hours where the team held AWS Neuron devices.
  const words = hoursWords(l.map((x) => String(x.unit_kind ?? "gpu")));
  const hoursWord = words.hours.replace(/^Accelerator/, "accelerator");
  main.replaceChildren(...present(
    h("div", { class: "page-head" },
      h("p", { class: "no-print" }, h("a", { href: href("chargeback", { month, cluster: params.get("cluster") ?? "" }) }, "‹ All teams")),
      h("h1", {}, `Statement: team ${team}, ${month}`),
      h("p", { class: "window", "data-window": win }, "Calendar month, UTC")),
    head, fellBack, coverageNote(lines, win),
    h("section", { class: "statement card" },
      h("p", { class: "amount" }, "Amount due ", h("strong", { "data-amount": "" }, moneyOf(total, { unpriced_gpu_hours: unpriced }))),
      h("p", { "data-hours": "" }, `${hours(gh)} ${hoursWord} · efficiency ${percent(total !== null && total > 0 ? eff / total : null)}`),
      unpriced > 0 ? h("p", { class: "note", "data-unpriced": "" },
        `${hours(unpriced)} ${hoursWord} had no known price and are in no amount (docs/pricing.md)`) : null),
    table("Lines by GPU model and capacity type", `statement-${team}-${month}-lines`,
      [{ label: "GPU model", key: "gpu_model", text: (x: ReportRow) => groupName(x, ["gpu_model"]) },
        { label: "Capacity", key: "capacity_type", text: (x: ReportRow) => String(x.capacity_type ?? "").replace("_", "-"), raw: (x: ReportRow) => String(x.capacity_type ?? "") },
        ...moneyColumns(words, unpriced > 0)], l, totalRow(l, "gpu_model")),
    roundingNote(priced, total),
    table("Workloads", `statement-${team}-${month}-workloads`,
      [{ label: "Workload", key: "workload", text: (x: ReportRow) => (x.namespace === undefined ? String(x.workload) : `${x.namespace}/${x.workload}`) },
        ...moneyColumns(words, unpriced > 0)], wl, totalRow(wl, "workload")),
  ));
}
