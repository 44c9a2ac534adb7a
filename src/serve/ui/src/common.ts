// What the report pages share: the report columns, the group-by choices and the cluster filter.
import type { LedgerInfo, ReportRow } from "./api";
import { Column, select } from "./dom";
import { hours, money, NONE, percent } from "./format";
import { update } from "./state";

export const DIMENSIONS: [string, string][] = [
  ["team", "Team"], ["namespace", "Namespace"], ["workload", "Workload"], ["cluster", "Cluster"],
  ["node", "Node"], ["gpu_model", "GPU model"], ["capacity_type", "Capacity type"],
  ["mig_profile", "MIG profile"], ["unit_kind", "Unit kind"],
];

// What hours are hours of (docs/report.md, "Unit kinds"): GPU-hours, accelerator-hours of AWS
// Neuron devices, or both. GPU-only data reads as it always has.
export interface HoursWords {
  hours: string;  // "GPU-hours", "Accelerator-hours", "GPU- and accelerator-hours"
  short: string;  // "GPU-h", "Accelerator-h", "GPU- and accelerator-h"
}

export function hoursWords(kinds: Iterable<string>): HoursWords {
  let gpus = false;
  let accelerators = false;
  for (const k of kinds) {
    if (k === "gpu") gpus = true;
    else accelerators = true;
  }
  if (!accelerators) return { hours: "GPU-hours", short: "GPU-h" };
  if (!gpus) return { hours: "Accelerator-hours", short: "Accelerator-h" };
  return { hours: "GPU- and accelerator-hours", short: "GPU- and accelerator-h" };
}

// Of a report: its unit_kind_hours, present only when some capacity is not GPUs.
export function reportHoursWords(r: { unit_kind_hours?: Record<string, number> }): HoursWords {
  return hoursWords(Object.entries(r.unit_kind_hours ?? {}).filter(([, v]) => v > 0).map(([k]) => k));
}

export function dimensionLabel(d: string): string {
  return DIMENSIONS.find((x) => x[0] === d)?.[1] ?? d;
}

// The same inside a sentence: "team", "GPU model", "MIG profile" (an acronym keeps its case).
export function dimensionWords(d: string): string {
  const label = dimensionLabel(d);
  return /^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

// The value of a row's group: its dimension values joined, "idle capacity" for an idle row.
export function groupName(r: ReportRow, by: string[]): string {
  const v = by.map((d) => r[d]).filter((x) => x !== undefined && x !== null && x !== "");
  if (r.idle === true || v.every((x) => x === "__idle__")) {
    const cap = v.filter((x) => x !== "__idle__").map((x) => (x === "__unallocated__" ? "(none)" : x));
    return cap.length ? cap.join(" / ") + " (idle)" : "idle capacity";
  }
  // A dimension a holder has no value for (a whole GPU's MIG profile, an absent label).
  return v.map((x) => (x === "__unallocated__" ? "(none)" : x)).join(" / ") || "(none)";
}

export function isIdle(r: ReportRow, by: string[]): boolean {
  return r.idle === true || by.some((d) => r[d] === "__idle__");
}

// What "Idle capacity" counts, as a tooltip wherever the UI shows it.
export const WASTE =
  "Held GPUs' cost that did no work (allocated − effective, over the measured hours), plus the idle capacity a row has or is given.";

export const IDLE_CAPACITY =
  "Cost of GPUs nobody held, or this row's share of it where idle is shared. A GPU held but left idle is waste, not idle capacity.";

// Money of a row some of whose hours had no known price: the priced part "+ unknown", as the
// CLI's statements print it (docs/pricing.md); never a figure that looks complete. Used for the
// allocated cost and the total, what is charged; the other figures are of the priced hours, as
// the note beside them and the "Unpriced" column say.
export function moneyOf(v: number | null | undefined, r: { unpriced_gpu_hours?: number }): string {
  const text = money(v);
  return text !== NONE && (r.unpriced_gpu_hours ?? 0) > 1e-9 ? text + " + unknown" : text;
}

// Money of what a row held: an idle row held nothing, so none of its unpriced hours is in it.
function heldMoneyOf(v: number | null | undefined, r: ReportRow): string {
  return r.idle === true ? money(v) : moneyOf(v, r);
}

// Marks the idle rows of `rows` (grouped `by`) with their hours of no known price, and returns
// those hours in all: the idle figures are of the priced part.
export function markIdleUnpriced(rows: ReportRow[], by: string[]): number {
  let sum = 0;
  for (const r of rows) {
    if (!isIdle(r, by)) continue;
    r.idle = true;
    r.idle_unpriced_gpu_hours = r.unpriced_gpu_hours ?? 0;
    sum += r.unpriced_gpu_hours ?? 0;
  }
  return sum;
}

// What the note under a page's figures says of capacity without a known price; "" when none.
export function unpricedNote(unpriced: number, words: HoursWords): string {
  return unpriced > 1e-9
    ? `${hours(unpriced)} ${words.hours} had no known price: they count in the hours and in no dollar figure, so the money shown is of the priced hours (column "Unpriced hours").`
    : "";
}

// The report columns; "Unpriced" only where some hours had no known price (`unpriced`).
export function moneyColumns(words: HoursWords = hoursWords([]), unpriced = false): Column<ReportRow>[] {
  return [
    { label: words.hours, key: "gpu_hours", num: true, text: (r) => hours(r.gpu_hours), raw: (r) => r.gpu_hours },
    // Money that leaves out hours with no price says so, as the CLI's table does. An idle row
    // (marked by markIdleUnpriced) holds nothing: its allocated and effective money are whole,
    // and its unpriced hours are in its idle capacity and waste.
    { label: "Allocated", key: "allocated_usd", num: true, text: (r) => heldMoneyOf(r.allocated_usd, r), raw: (r) => r.allocated_usd },
    { label: "Effective", key: "effective_usd", num: true, text: (r) => heldMoneyOf(r.effective_usd, r), raw: (r) => r.effective_usd },
    { label: "Waste", key: "waste_usd", num: true, text: (r) => moneyOf(r.waste_usd, r), raw: (r) => r.waste_usd, title: WASTE },
    // Capacity nobody held (or a row's share of it, with shared idle); a held GPU left idle is
    // waste. Named apart from the CLI statement's "idle cost", which is held hours under the
    // idle threshold.
    // Idle hours without a known price (`idle_unpriced_gpu_hours`, set on idle and total rows by
    // markIdleUnpriced) are in no figure: "+ unknown", never a bare $0.00.
    { label: "Idle capacity", key: "idle_usd", num: true,
      text: (r) => moneyOf(r.idle_usd, { unpriced_gpu_hours: Number(r.idle_unpriced_gpu_hours ?? 0) }), raw: (r) => r.idle_usd,
      title: IDLE_CAPACITY },
    { label: "Efficiency", key: "efficiency", num: true, text: (r) => percent(r.efficiency), raw: (r) => r.efficiency },
    // Short headers, the unit in the tooltip: a long header clipped the table on a laptop.
    { label: "Unmeasured hours", key: "unmeasured_gpu_hours", num: true, text: (r) => hours(r.unmeasured_gpu_hours), raw: (r) => r.unmeasured_gpu_hours,
      title: `${words.hours} held with no utilization sample: effective cost and waste cover the measured hours only` },
    ...(unpriced
      ? [{ label: "Unpriced hours", key: "unpriced_gpu_hours", num: true, text: (r: ReportRow) => hours(r.unpriced_gpu_hours),
        raw: (r: ReportRow) => r.unpriced_gpu_hours, title: `${words.hours} with no known price: in no dollar figure of the row` }]
      : []),
  ];
}

// The total row of a table of report rows: sums of the money and hours columns (null when every
// row's is null: unknown, not $0), efficiency from the sums; `key` names it "total".
export function totalRow(rows: ReportRow[], key: string): ReportRow {
  const sum = (f: (r: ReportRow) => number | null | undefined): number | null => {
    const v = rows.map(f).filter((x): x is number => x !== null && x !== undefined);
    return v.length ? v.reduce((a, b) => a + b, 0) : null;
  };
  const allocated = sum((r) => r.allocated_usd);
  const effective = sum((r) => r.effective_usd);
  return {
    [key]: "total", gpu_hours: sum((r) => r.gpu_hours) ?? 0, allocated_usd: allocated,
    effective_usd: effective, waste_usd: sum((r) => r.waste_usd), idle_usd: sum((r) => r.idle_usd),
    efficiency: allocated && effective !== null ? effective / allocated : null,
    unmeasured_gpu_hours: sum((r) => r.unmeasured_gpu_hours) ?? 0,
    unpriced_gpu_hours: sum((r) => r.unpriced_gpu_hours) ?? 0,
  } as unknown as ReportRow;
}

// How a row's utilization was measured (docs/report.md): every hour sampled, partly, none, or
// split from a shared GPU's activity by shares.
export function measuredAs(r: ReportRow): string {
  if (!(r.gpu_hours > 0)) return NONE;  // nothing held: nothing to measure
  if (r.unmeasured_gpu_hours >= r.gpu_hours - 1e-9) return "unmeasured";
  const part = r.unmeasured_gpu_hours > 1e-9 ? "partly measured" : "measured";
  return r.estimated ? part + ", estimated share" : part;
}

export function clusterControl(info: LedgerInfo, params: URLSearchParams): HTMLElement | null {
  if (info.clusters.length < 2) return null;
  return select("cluster", "Cluster", params.get("cluster") ?? "",
    [["", "All clusters"], ...info.clusters.map((c): [string, string] => [c, c])],
    (v) => update({ cluster: v }));
}

export function clusterParam(params: URLSearchParams): Record<string, string> {
  const c = params.get("cluster");
  return c ? { cluster: c } : {};
}
