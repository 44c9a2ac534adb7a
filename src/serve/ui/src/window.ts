// The window of a page: a preset counted back from the newest data in the ledger (a ledger may
// end in the past), or a custom range; both aligned on the ledger's step. "Last 7 days" and
// "Last 30 days" are whole UTC days, the newest data's day the last of them, so that their
// charts' daily buckets are the ledger's daily roll-ups (a month's overview reads 30 roll-up days,
// not every record).
import type { LedgerInfo, Window } from "./api";

export const PRESETS: [string, string, number][] = [
  ["24h", "Last 24 hours", 24 * 3600],
  ["7d", "Last 7 days", 7 * 86400],
  ["30d", "Last 30 days", 30 * 86400],
  ["all", "Everything", 0],
];

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

// A page's window; `note` says why it is not the one the URL asked for.
export interface ResolvedWindow extends Window {
  note?: string;
}

// The window `params` name (window=24h|7d|30d|all, or from= and to= as RFC 3339), within the
// ledger's; null when the ledger is empty. A range or preset it cannot use (no data of the ledger
// in it, a name it does not know) gives the default, with a note that says so.
export function resolve(info: LedgerInfo, params: URLSearchParams): ResolvedWindow | null {
  if (!info.window) return null;
  const lo = Date.parse(info.window.start);
  const hi = Date.parse(info.window.end);
  const from = params.get("from");
  const to = params.get("to");
  const stepMs = Math.max(1, info.step_s) * 1000;
  let note: string | undefined;
  const ranged = params.has("from") || params.has("to");
  if (ranged) {
    const f = Date.parse(from ?? "");
    const t = Date.parse(to ?? "");
    // What is wrong with a range is said as it is: not dates, backwards, or outside the data.
    if (Number.isNaN(f) || Number.isNaN(t)) {
      note = `A custom range needs a From and a To that are dates (from "${from ?? ""}", to "${to ?? ""}"): the last 7 days are shown.`;
    } else if (t <= f) {
      note = `The range asked for ends before it starts (${from} to ${to}): the last 7 days are shown.`;
    } else {
      // On the ledger's steps, which a read must start and end on (a date picker gives
      // minutes): the steps the range touches.
      const a = lo + Math.floor((Math.max(lo, f) - lo) / stepMs) * stepMs;
      const b = Math.min(hi, lo + Math.ceil((t - lo) / stepMs) * stepMs);
      if (b > a) return { start: iso(a), end: iso(b) };
      note = `The range asked for holds none of the ledger's data (${info.window.start} to ${info.window.end}): the last 7 days are shown.`;
    }
  }
  const named = PRESETS.find((p) => p[0] === (params.get("window") ?? "7d"));
  if (!named && !note) note = `No window named "${params.get("window")}": the last 7 days are shown.`;
  const preset = ranged ? PRESETS[1] : named ?? PRESETS[1];
  const DAY = 86400 * 1000;
  const days = preset[2] % 86400 === 0 && preset[2] > 0 ? preset[2] / 86400 : 0;
  // Whole days: from the midnight (UTC) days - 1 days before the newest data's day.
  const counted = days > 0 ? Math.floor((hi - 1) / DAY) * DAY - (days - 1) * DAY : hi - preset[2] * 1000;
  const start = preset[2] === 0 ? lo : Math.max(lo, counted);
  const aligned = lo + Math.floor((start - lo) / stepMs) * stepMs;
  return { start: iso(aligned), end: iso(hi), note };
}

// An output step for about `buckets` points: a whole multiple of the ledger's step, rounded up
// to a round length (5 m, 1 h, 1 d...).
export function chartStep(w: Window, stepS: number, buckets = 120): number {
  const span = (Date.parse(w.end) - Date.parse(w.start)) / 1000;
  const want = Math.max(stepS, span / buckets);
  // Beyond a week, whole days: the ledger's daily roll-ups answer them.
  const round = span > 7 * 86400 ? [86400, 604800] : [60, 300, 900, 1800, 3600, 7200, 21600, 43200, 86400, 604800];
  let s = round.find((r) => r >= want) ?? 604800;
  s = Math.max(stepS, Math.ceil(s / stepS) * stepS);
  // A chart needs two points: a short window (a new ledger's first minutes) in smaller buckets.
  if (2 * s > span && span >= 2 * stepS) s = Math.max(stepS, Math.floor(span / 2 / stepS) * stepS);
  return s;
}

export function windowParam(w: Window): string {
  return w.start + "," + w.end;
}
