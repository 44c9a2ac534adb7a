// Small DOM helpers: elements, tables with a CSV download, the window and filter controls.
import { csv, download } from "./format";
import { PRESETS } from "./window";
import { update } from "./state";

type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | boolean | ((e: Event) => void)> = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (v === true) el.setAttribute(k, "");
    else if (v !== false) el.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

export interface Column<R> {
  label: string;
  key: string;                        // the CSV column, and data-col on cells
  text: (r: R) => string;             // what the cell shows
  raw?: (r: R) => string | number | boolean | null | undefined;  // the CSV value (full precision)
  num?: boolean;                      // right-aligned
  link?: (r: R) => string | null;     // the cell links there
  title?: string;                     // the header's tooltip: what the column counts
}

// A table's CSV file name says the window the page shows (its "data-window", the API's
// START,END), so that two downloads of one table are told apart: "cost-by-team_2026-10-01T0000Z_
// 2026-10-04T0000Z.csv". A name that already holds its month keeps it alone.
export function csvName(file: string): string {
  const win = document.querySelector("[data-window]")?.getAttribute("data-window") ?? "";
  const parts = win.split(",").map((t) => t.replace(/:\d{2}(\.\d+)?Z$/, "Z").replace(/:/g, ""));
  return /\d{4}-\d{2}/.test(file) || parts.length !== 2 ? file + ".csv" : `${file}_${parts[0]}_${parts[1]}.csv`;
}

// A table with a caption and a "Download CSV" button that writes the rows at full precision.
export function table<R>(caption: string, file: string, cols: Column<R>[], rows: R[],
                         foot?: R): HTMLElement {
  // The foot row is the table's total: no group to follow, so never a link.
  const cell = (r: R, c: Column<R>, tag: "td" | "th", isFoot = false) => {
    const text = c.text(r);
    const target = isFoot ? null : c.link?.(r);
    return h(tag, { class: c.num ? "num" : "", "data-col": c.key, "data-label": c.label, ...(tag === "th" ? { scope: "row" } : {}) },
      target ? h("a", { href: target }, text) : text);
  };
  const body = rows.map((r) => h("tr", {}, cols.map((c, i) => cell(r, c, i === 0 ? "th" : "td"))));
  const csvButton = h("button", {
    type: "button", class: "csv",
    onclick: () => download(csvName(file), csv(cols.map((c) => c.key),
      rows.map((r) => cols.map((c) => (c.raw ? c.raw(r) : c.text(r)))))),
  }, "Download CSV");
  return h("section", { class: "card table-card" },
    h("div", { class: "card-head" }, h("h2", {}, caption), csvButton),
    h("div", { class: "scroll", tabindex: "0", role: "region", "aria-label": caption },
      h("table", { "data-table": file, class: "cards" },
        h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col", class: c.num ? "num" : "", ...(c.title ? { title: c.title } : {}) }, c.label)))),
        h("tbody", {}, body),
        foot ? h("tfoot", {}, h("tr", { class: "total" }, cols.map((c, i) => cell(foot, c, i === 0 ? "th" : "td", true)))) : null)));
}

export function kpi(label: string, value: string, id: string, title = "", cls = ""): HTMLElement {
  return h("div", { class: ("kpi " + cls).trim(), title },
    h("div", { class: "kpi-label" }, label),
    h("div", { class: "kpi-value", "data-kpi": id }, value));
}

// The window presets and a custom range, written to the URL.
export function windowControls(params: URLSearchParams, w: { start: string; end: string; note?: string }): HTMLElement {
  const custom = params.has("from") && params.has("to") && !w.note;
  // The preset the page shows: one the URL names, else the default it fell back to.
  const named = params.get("window");
  const preset = custom ? "custom" : PRESETS.some(([v]) => v === named) ? named! : "7d";
  const select = h("select", {
    id: "window", onchange: (e: Event) => {
      const v = (e.target as HTMLSelectElement).value;
      if (v === "custom") update({ window: "", from: w.start, to: w.end });
      else update({ window: v, from: "", to: "" });
    },
  }, PRESETS.map(([v, label]) => h("option", { value: v, ...(v === preset ? { selected: true } : {}) }, label)),
  h("option", { value: "custom", ...(custom ? { selected: true } : {}) }, "Custom range"));
  const local = (iso: string) => iso.slice(0, 16);
  const from = h("input", { type: "datetime-local", id: "from", value: local(w.start), "aria-label": "From (UTC)" });
  const to = h("input", { type: "datetime-local", id: "to", value: local(w.end), "aria-label": "To (UTC)" });
  const apply = h("button", {
    type: "button", onclick: () =>
      // An emptied box is no date: the page says so rather than read a range from nothing.
      update({ window: "", from: from.value ? from.value + ":00Z" : "-", to: to.value ? to.value + ":00Z" : "-" }),
  }, "Apply");
  return h("div", { class: "control" },
    h("label", { for: "window" }, "Window"), select,
    custom ? h("span", { class: "range" }, from, "–", to, " UTC ", apply) : null,
    w.note ? h("span", { class: "window-note", role: "status" }, w.note) : null);
}

export function select(id: string, label: string, value: string, options: [string, string][],
                       onchange: (v: string) => void): HTMLElement {
  return h("div", { class: "control" },
    h("label", { for: id }, label),
    h("select", { id, onchange: (e: Event) => onchange((e.target as HTMLSelectElement).value) },
      options.map(([v, l]) => h("option", { value: v, ...(v === value ? { selected: true } : {}) }, l))));
}

// The nodes of a list that are there (a page's optional parts are null).
export function present(...nodes: (Node | null | undefined | false)[]): Node[] {
  return nodes.filter((n): n is Node => !!n);
}

export function message(text: string, cls = "note"): HTMLElement {
  return h("p", { class: cls, role: cls === "error" ? "alert" : "status" }, text);
}
