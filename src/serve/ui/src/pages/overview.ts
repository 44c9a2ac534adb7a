// Overview: the window's cost stacked over time by a dimension, the headline figures (allocated,
// effective, waste, idle, unmeasured, efficiency) with the change from the previous period, and
// the table of groups.
import { LedgerInfo, report, ReportRow } from "../api";
import { colorsByName, IDLE_COLOR, PALETTE, Stack, stackedChart } from "../chart";
import { clusterControl, clusterParam, DIMENSIONS, dimensionLabel, IDLE_CAPACITY, dimensionWords, groupName, isIdle, markIdleUnpriced, moneyColumns, moneyOf, reportHoursWords, unpricedNote, WASTE } from "../common";
import { h, kpi, message, select, table, windowControls } from "../dom";
import { hours, instant, money, percent } from "../format";
import { href, update } from "../state";
import { chartStep, resolve, windowParam } from "../window";

const TOP = 8;

// The change from the period before: of the total (the capacity's cost, which holds still while
// the nodes do) and of the allocated cost (what the teams held).
function change(now: ReportRow | null, before: ReportRow | null): string {
  const delta = (a: number | null | undefined, b: number | null | undefined) => {
    if (a === null || a === undefined || b === null || b === undefined || !(Math.abs(b) > 1e-9)) return null;
    const d = (a - b) / Math.abs(b);
    return `${d >= 0 ? "+" : ""}${percent(d)} (${money(b)} before)`;
  };
  const total = delta(now?.cost_usd as number | null, before?.cost_usd as number | null);
  const allocated = delta(now?.allocated_usd, before?.allocated_usd);
  if (total === null && allocated === null) {
    return "The ledger holds no previous period of the same length to compare with.";
  }
  return "Against the previous period of the same length: " +
    [total === null ? "" : `total cost ${total}`, allocated === null ? "" : `allocated ${allocated}`]
      .filter(Boolean).join(", ") + ".";
}

export async function overview(main: HTMLElement, info: LedgerInfo, params: URLSearchParams): Promise<void> {
  const w = resolve(info, params);
  if (!w) {
    main.replaceChildren(h("h1", {}, "Overview"), message("The ledger holds no costs yet. A serve that writes it adds its first step a minute or two after it starts; `gpucost ledger write` adds a window of files (docs/ledger.md)."));
    return;
  }
  const by = DIMENSIONS.some((d) => d[0] === params.get("by")) ? params.get("by")! : "team";
  const common = { window: windowParam(w), by, ...clusterParam(params) };
  const length = Date.parse(w.end) - Date.parse(w.start);
  const prevStart = Date.parse(w.start) - length;
  const prev = info.window && prevStart >= Date.parse(info.window.start)
    ? report({ ...common, window: new Date(prevStart).toISOString().replace(/\.\d{3}Z$/, "Z") + "," + w.start })
    : Promise.resolve(null);
  const step = chartStep(w, info.step_s);
  const [acc, series, before] = await Promise.all([
    report(common),
    report({ ...common, accumulate: "false", step: step + "s" }),
    prev,
  ]);
  const t = acc.totals;
  const words = reportHoursWords(acc);
  const idleUnpriced = markIdleUnpriced(acc.rows, [by]);

  const groups = acc.rows.filter((r) => !isIdle(r, [by])).map((r) => groupName(r, [by]));
  const top = groups.slice(0, TOP);
  const xs: number[] = [];
  const index = new Map<string, number>();
  for (const r of series.rows) {
    if (!index.has(r.start!)) { index.set(r.start!, xs.length); xs.push(Date.parse(r.start!) / 1000); }
  }
  // Each bucket's money as a rate (USD per hour): the last bucket of a window is often shorter
  // than the others, and its money alone would draw as a drop that is not there.
  // Its legend's total is `total`, or the sum of the window's rows (the table's figures), with
  // "+ unknown" as the table has it.
  const band = (label: string, color: string, pick: (r: ReportRow) => number | null, total?: string): Stack => {
    const values = xs.map(() => 0);
    for (const r of series.rows) {
      const v = pick(r);
      const hoursOf = (Date.parse(r.end ?? r.start!) - Date.parse(r.start!)) / 3.6e6;
      if (v !== null && hoursOf > 0) values[index.get(r.start!)!] += v / hoursOf;
    }
    let sum: number | null = null;  // none while no row's money is known
    let unpriced = 0;
    for (const r of acc.rows) {
      const v = pick(r);
      if (v === null) continue;
      if (r.allocated_usd !== null && r.allocated_usd !== undefined) sum = (sum ?? 0) + v;
      unpriced += r.unpriced_gpu_hours ?? 0;
    }
    return { label, color, values, total: total ?? moneyOf(sum, { unpriced_gpu_hours: unpriced }) };
  };
  // Teams keep their colour on every page (the fleet's map too); other groups go by rank.
  const colors = by === "team" ? colorsByName(top) : new Map(top.map((g, i) => [g, PALETTE[i % PALETTE.length]]));
  const stacks: Stack[] = top.map((g) => band(g, colors.get(g)!,
    (r) => (!isIdle(r, [by]) && groupName(r, [by]) === g ? r.allocated_usd ?? 0 : null)));
  if (groups.length > TOP) {
    const rest = new Set(groups.slice(TOP));
    stacks.push(band("other", "#6b7280", (r) => (!isIdle(r, [by]) && rest.has(groupName(r, [by])) ? r.allocated_usd ?? 0 : null)));
  }
  stacks.push(band("idle", IDLE_COLOR, (r) => (isIdle(r, [by]) ? r.idle_usd ?? 0 : null),
    moneyOf(t.idle_usd, { unpriced_gpu_hours: idleUnpriced })));

  const chartBox = h("div", { class: "chart", role: "img", "aria-label": `Cost per ${dimensionLabel(by)} over time` });
  const drill = (r: ReportRow) => (isIdle(r, [by]) || !["team", "namespace", "workload"].includes(by)
    ? null : href("drill", { [by]: String(r[by]), window: params.get("window") ?? "", from: params.get("from") ?? "", to: params.get("to") ?? "", cluster: params.get("cluster") ?? "" }));
  main.replaceChildren(
    h("div", { class: "page-head" },
      h("h1", {}, "Overview"),
      h("p", { class: "window", "data-window": windowParam(w) }, instant(w.start), " – ", instant(w.end), " UTC"),
    ),
    h("div", { class: "controls" },
      windowControls(params, w),
      select("by", "Stack by", by, DIMENSIONS, (v) => update({ by: v })),
      clusterControl(info, params)),
    h("section", { class: "kpis", "aria-label": "Totals for the window" },
      kpi("Total cost", moneyOf(t.cost_usd, t), "cost_usd", change(t, before?.totals ?? null)),
      kpi("Allocated", moneyOf(t.allocated_usd, t), "allocated_usd"),
      // Of the priced hours, as the CLI's totals row says: "+ unknown" when some had no price.
      kpi("Effective", moneyOf(t.effective_usd, t), "effective_usd"),
      kpi("Waste", moneyOf(t.waste_usd, t), "waste_usd", WASTE),
      kpi("Idle capacity", moneyOf(t.idle_usd, { unpriced_gpu_hours: idleUnpriced }), "idle_usd", IDLE_CAPACITY),
      kpi("Efficiency", percent(t.efficiency), "efficiency"),
      kpi(words.hours, hours(t.gpu_hours), "gpu_hours", "Hours of all capacity in the window: held and idle"),
      kpi("Unmeasured " + words.short, hours(t.unmeasured_gpu_hours), "unmeasured_gpu_hours")),
    h("p", { class: "change", "data-change": "" }, change(t, before?.totals ?? null),
      t.unpriced_gpu_hours > 1e-9 ? " · " + unpricedNote(t.unpriced_gpu_hours, words) : ""),
    h("section", { class: "card" }, h("h2", {}, `Cost per ${dimensionWords(by)} over time`), chartBox),
    table(`By ${dimensionWords(by)}`, `cost-by-${by}`,
      [{ label: dimensionLabel(by), key: by, text: (r: ReportRow) => groupName(r, [by]), raw: (r: ReportRow) => (r[by] as string) ?? "", link: drill },
        ...moneyColumns(words, t.unpriced_gpu_hours > 1e-9)],
      acc.rows, { ...t, [by]: "total", idle_unpriced_gpu_hours: idleUnpriced } as ReportRow),
  );
  const per = step >= 3600 ? step / 3600 + " h" : step >= 60 ? step / 60 + " min" : step + " s";
  if (xs.length > 1) stackedChart(chartBox, xs, stacks, `USD per hour, in ${per} buckets`, "/h");
  else if (xs.length === 1) chartBox.append(message("One step of data in this window so far: the chart draws from the second."));
  else chartBox.append(message("No steps in this window."));
}
