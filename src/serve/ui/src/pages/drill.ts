// Drill-down: team → namespace → workload → pod. Each level lists the next one's groups with
// their GPU-hours, money and how they were measured; a chosen group shows its allocated and
// effective cost and utilization over time. The path is the URL's team=, namespace=, workload=.
import uPlot from "uplot";
import { fromZero, utc, utcTicks } from "../chart";
import { LedgerInfo, report, ReportRow } from "../api";
import { clusterControl, clusterParam, groupName, measuredAs, moneyColumns, moneyOf, reportHoursWords, unpricedNote } from "../common";
import { h, kpi, message, present, table, windowControls } from "../dom";
import { hours, instant, money, percent } from "../format";
import { href } from "../state";
import { chartStep, resolve, windowParam } from "../window";

const LEVELS = ["team", "namespace", "workload", "pod"];

// A bucket's money as USD per hour: the window's last bucket is often shorter than the others.
function perHour(r: ReportRow, usd: number | null): number | null {
  const h = (Date.parse(r.end ?? r.start!) - Date.parse(r.start!)) / 3.6e6;
  return usd === null || !(h > 0) ? null : usd / h;
}

function utilizationChart(el: HTMLElement, rows: ReportRow[]): void {
  const xs = rows.map((r) => Date.parse(r.start!) / 1000);
  const width = () => Math.max(280, el.clientWidth - 2);
  const chart = new uPlot({
    width: width(), height: 240,
    scales: { x: { time: true }, y: { range: fromZero }, pct: { range: [0, 100] } },
    tzDate: utc,
    axes: [
      { stroke: "#4b5563", space: 90, values: utcTicks },
      { stroke: "#4b5563", size: 70, label: "USD per hour", values: (_u, ticks) => ticks.map((t) => money(t).replace(/\.00$/, "")) },
      { scale: "pct", side: 1, stroke: "#4b5563", values: (_u, ticks) => ticks.map((t) => t + "%"), grid: { show: false } },
    ],
    series: [
      { label: "time (UTC)", value: (_u, v) => (v == null ? "" : new Date(v * 1000).toISOString().slice(0, 16).replace("T", " ")) },
      { label: "allocated", stroke: "#2563eb", fill: "#2563eb33", points: { show: false }, value: (_u, v) => (v == null ? "–" : money(v) + "/h") },
      { label: "effective", stroke: "#059669", fill: "#05966944", points: { show: false }, value: (_u, v) => (v == null ? "–" : money(v) + "/h") },
      { label: "utilization", stroke: "#d97706", scale: "pct", points: { show: false }, value: (_u, v) => (v == null ? "–" : v.toFixed(1) + "%") },
    ],
  }, [xs, rows.map((r) => perHour(r, r.allocated_usd)), rows.map((r) => perHour(r, r.effective_usd)),
    rows.map((r) => (r.utilization === null ? null : r.utilization * 100))] as uPlot.AlignedData, el);
  new ResizeObserver(() => chart.setSize({ width: width(), height: 240 })).observe(el);
}

export async function drill(main: HTMLElement, info: LedgerInfo, params: URLSearchParams): Promise<void> {
  const w = resolve(info, params);
  if (!w) {
    main.replaceChildren(h("h1", {}, "Drill-down"), message("The ledger holds no costs yet."));
    return;
  }
  // The path: the levels the URL names, in order and without a gap. It may start below the team
  // (the overview links a namespace or a workload without its team).
  const path: [string, string][] = [];
  for (const l of LEVELS.slice(0, 3)) {
    const v = params.get(l);
    if (v === null) {
      if (path.length > 0) break;
      continue;
    }
    path.push([l, v]);
  }
  const level = LEVELS[path.length > 0 ? LEVELS.indexOf(path[path.length - 1][0]) + 1 : 0];
  const by = [...path.map(([k]) => k), level];
  const keep = (r: ReportRow) => path.every(([k, v]) => r[k] === v);
  const common = { window: windowParam(w), ...clusterParam(params) };
  // The level above, accumulated: its row is this level's total utilization, which the rows
  // alone cannot give (it is over the measured part of each).
  const [acc, series, above] = await Promise.all([
    report({ ...common, by: by.join(",") }),
    path.length > 0
      ? report({ ...common, by: by.slice(0, -1).join(","), accumulate: "false", step: chartStep(w, info.step_s) + "s" })
      : Promise.resolve(null),
    path.length > 0 ? report({ ...common, by: by.slice(0, -1).join(",") }) : Promise.resolve(null),
  ]);
  const rows = acc.rows.filter((r) => keep(r) && r[level] !== "__idle__");
  const sum = (f: (r: ReportRow) => number | null) => {
    const v = rows.map(f).filter((x): x is number => x !== null);
    return v.length ? v.reduce((a, b) => a + b, 0) : null;
  };
  const allocated = sum((r) => r.allocated_usd);
  const effective = sum((r) => r.effective_usd);
  const total = {
    gpu_hours: sum((r) => r.gpu_hours) ?? 0, allocated_usd: allocated, effective_usd: effective,
    waste_usd: sum((r) => r.waste_usd), idle_usd: sum((r) => r.idle_usd),
    efficiency: allocated && effective !== null ? effective / allocated : null,
    utilization: above ? (above.rows.find(keep)?.utilization ?? null) : acc.totals.utilization,
    unmeasured_gpu_hours: sum((r) => r.unmeasured_gpu_hours) ?? 0,
    unpriced_gpu_hours: sum((r) => r.unpriced_gpu_hours) ?? 0,
    estimated: rows.some((r) => r.estimated), [level]: "total",
  } as unknown as ReportRow;

  const words = reportHoursWords(acc);
  const base = { window: params.get("window") ?? "", from: params.get("from") ?? "", to: params.get("to") ?? "", cluster: params.get("cluster") ?? "" };
  const crumbs: HTMLElement[] = [h("a", { href: href("drill", base) }, "All teams")];
  path.forEach(([k, v], i) => {
    const upTo = Object.fromEntries(path.slice(0, i + 1));
    crumbs.push(h("span", { "aria-hidden": "true" }, " › "));
    crumbs.push(i === path.length - 1 ? h("span", { "aria-current": "page" }, `${k} ${v}`) : h("a", { href: href("drill", { ...base, ...upTo }) }, `${k} ${v}`));
  });
  const next = (r: ReportRow) => (level === "pod" ? null
    : href("drill", { ...base, ...Object.fromEntries(path), [level]: String(r[level]) }));

  const chartBox = h("div", { class: "chart", role: "img", "aria-label": "Cost and utilization over time" });
  main.replaceChildren(...present(
    h("div", { class: "page-head" }, h("h1", {}, "Drill-down"),
      h("p", { class: "window", "data-window": windowParam(w) }, instant(w.start), " – ", instant(w.end), " UTC")),
    h("nav", { class: "crumbs", "aria-label": "Drill-down path" }, crumbs),
    h("div", { class: "controls" }, windowControls(params, w), clusterControl(info, params)),
    // Held capacity only: the overview's totals add the capacity nobody held.
    h("section", { class: "kpis", "aria-label": "Totals of this level" },
      kpi("Allocated", moneyOf(total.allocated_usd, total), "allocated_usd"),
      kpi("Effective", money(total.effective_usd), "effective_usd"),
      kpi("Waste of held GPUs", money(total.waste_usd), "waste_usd",
        "Held GPUs' cost that did no work (allocated − effective, over the measured hours). Idle capacity, which the overview's waste adds, is nobody's here."),
      kpi("Held " + words.hours.replace(/^Accelerator/, "accelerator"), hours(total.gpu_hours), "gpu_hours"),
      kpi("Efficiency", percent(total.efficiency), "efficiency"),
      kpi("Measured", rows.length ? measuredAs(total) : "–", "measured", "", "kpi-text")),
    total.unpriced_gpu_hours > 1e-9 ? h("p", { class: "change", "data-unpriced": "" }, unpricedNote(total.unpriced_gpu_hours, words)) : null,
    path.length > 0 ? h("section", { class: "card" }, h("h2", {}, "Over time"), chartBox) : null,
    table(`${level[0].toUpperCase() + level.slice(1)}s`, `drill-${level}`,
      [{ label: level, key: level, text: (r: ReportRow) => groupName(r, [level]), raw: (r: ReportRow) => String(r[level] ?? ""), link: next },
        ...moneyColumns(words, total.unpriced_gpu_hours > 1e-9),
        { label: "Utilization", key: "utilization", num: true, text: (r: ReportRow) => percent(r.utilization), raw: (r: ReportRow) => r.utilization },
        { label: "How measured", key: "measured", text: (r: ReportRow) => measuredAs(r) }],
      rows, total),
  ));
  if (series) {
    const mine = series.rows.filter(keep);
    if (mine.length > 1) utilizationChart(chartBox, mine);
    else if (mine.length === 1) chartBox.append(message("One step of this group in the window: the chart draws from the second."));
    else chartBox.append(message("No steps of this group in the window."));
  }
}
