// Stacked area charts of money over time with uPlot: each series is drawn as the running sum of
// the groups below it, filled, so the top line is the total; the legend shows each group's own
// value at the cursor, and its money over the whole window while the cursor is off the chart.
import uPlot from "uplot";
import { money } from "./format";

export const PALETTE = [
  "#2563eb", "#d97706", "#059669", "#dc2626", "#7c3aed", "#0891b2", "#c026d3", "#65a30d",
  "#ea580c", "#92400e", "#0d9488", "#be123c",
];
export const IDLE_COLOR = "#9ca3af";

// Every team of the ledger (/api/v1/ledger's teams), set once a page's ledger is read: colours are
// given over the whole list, so that a team is drawn in one colour on every page.
let knownNames: string[] = [];
export function setKnownNames(names: string[]): void {
  knownNames = names;
}

// A colour for each name: the hash picks a colour of PALETTE; of names that clash, the later in
// sorted order takes the next free colour (the palette's twelve are reused past twelve names).
// Colours are given over the known names and the page's together, so a team is the same colour
// on every page (the overview's chart, the fleet's map) whichever teams the page shows.
export function colorsByName(names: Iterable<string>): Map<string, string> {
  const mine = new Set(names);
  const all = new Map<string, string>();
  const used = new Set<number>();
  for (const name of [...new Set([...knownNames, ...mine])].sort()) {
    let hash = 2166136261;
    for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619) >>> 0;
    if (used.size >= PALETTE.length) used.clear();  // every colour taken: a new round
    let at = hash % PALETTE.length;
    while (used.has(at)) at = (at + 1) % PALETTE.length;
    used.add(at);
    all.set(name, PALETTE[at]);
  }
  return new Map([...mine].map((n) => [n, all.get(n)!]));
}

// Axis ticks in UTC, as every window and API time is.
export const utc = (ts: number): Date => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC");

export interface Stack {
  label: string;
  values: number[];  // per x, this group's own value
  color: string;
  total: string;  // the group's money over the window, as the page's table writes it
}

// The time's legend entry while the cursor is off the chart, where the groups' entries are their
// totals.
export const WINDOW_TOTAL = "window total";

// Time ticks in UTC as the rest of the page writes times: "11-28 15:00" where the day changes (and
// on the first tick), "15:05" after it; days alone ("11-28") when ticks are a day or more apart.
export function utcTicks(_u: uPlot, ticks: number[], _axis: number, _space: number, incr: number): string[] {
  let day = "";
  return ticks.map((t) => {
    const iso = new Date(t * 1000).toISOString();
    const d = iso.slice(5, 10);
    const label = incr >= 86400 ? d : d !== day ? `${d} ${iso.slice(11, 16)}` : iso.slice(11, 16);
    day = d;
    return label;
  });
}

// A y scale from zero: a stack of money starts at none.
export const fromZero = (_u: uPlot, _min: number, max: number): uPlot.Range.MinMax =>
  uPlot.rangeNum(0, max > 0 ? max : 1, 0.1, true);

// `suffix` follows each value in the legend ("/h" for rates).
export function stackedChart(el: HTMLElement, xs: number[], stacks: Stack[], yLabel: string, suffix = ""): uPlot {
  const sums: number[][] = [];
  let running = xs.map(() => 0);
  for (const s of stacks) {
    running = running.map((v, i) => v + (s.values[i] ?? 0));
    sums.push(running);
  }
  // Top of the stack first, so that each lower band is painted over the one above it.
  const order = stacks.map((_, i) => i).reverse();
  const width = () => Math.max(280, el.clientWidth - 2);
  const opts: uPlot.Options = {
    width: width(),
    height: 300,
    scales: { x: { time: true }, y: { range: fromZero } },
    tzDate: utc,
    axes: [
      { stroke: "#4b5563", space: 90, values: utcTicks },
      { stroke: "#4b5563", size: 70, label: yLabel, values: (_u, ticks) => ticks.map((t) => money(t).replace(/\.00$/, "")) },
    ],
    legend: { live: true },
    series: [
      { label: "time (UTC)", value: (_u, v) => (v == null ? WINDOW_TOTAL : new Date(v * 1000).toISOString().slice(0, 16).replace("T", " ")) },
      ...order.map((i) => ({
        label: stacks[i].label,
        stroke: stacks[i].color,
        fill: stacks[i].color + "cc",
        width: 1,
        points: { show: false },
        value: (_u: uPlot, _v: number, _s: number, idx: number | null) =>
          idx == null ? stacks[i].total : money(stacks[i].values[idx]) + suffix,
      })),
    ],
  };
  const chart = new uPlot(opts, [xs, ...order.map((i) => sums[i])] as uPlot.AlignedData, el);
  const resize = new ResizeObserver(() => chart.setSize({ width: width(), height: 300 }));
  resize.observe(el);
  return chart;
}
