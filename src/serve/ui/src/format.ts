// Figures as gpucost prints them everywhere (docs/report.md, "Rounding"): each figure is its exact
// value rounded once, half away from zero, after taking it to 10^-6 as core/money.h's RoundUnits
// does; money with thousands separators and two decimals. Null is "–", never zero.

export function roundUnits(value: number, decimals: number): number {
  const fine = Math.round(Math.abs(value) * 10 ** (decimals + 4));
  const whole = Math.floor(fine / 10000);
  const units = fine % 10000 >= 5000 ? whole + 1 : whole;
  return value < 0 ? -units : units;
}

function grouped(units: number, decimals: number): string {
  const negative = units < 0;
  const digits = String(Math.abs(units)).padStart(decimals + 1, "0");
  const int = digits.slice(0, digits.length - decimals);
  const frac = digits.slice(digits.length - decimals);
  const withCommas = int.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return (negative ? "-" : "") + withCommas + (decimals > 0 ? "." + frac : "");
}

export const NONE = "–";

export function money(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NONE;
  const s = grouped(roundUnits(v, 2), 2);
  return s.startsWith("-") ? "-$" + s.slice(1) : "$" + s;
}

export function hours(v: number | null | undefined, decimals = 2): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NONE;
  return grouped(roundUnits(v, decimals), decimals);
}

export function percent(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return NONE;
  return grouped(roundUnits(v * 100, 1), 1) + "%";
}

// RFC 4180 CSV: full precision, null as an empty field, as the CLI's CSV.
export function csv(header: string[], rows: (string | number | boolean | null | undefined)[][]): string {
  const field = (v: string | number | boolean | null | undefined): string => {
    if (v === null || v === undefined) return "";
    const s = String(v);
    return /[",\n\r]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  };
  return [header, ...rows].map((r) => r.map(field).join(",")).join("\r\n") + "\r\n";
}

export function download(name: string, text: string, type = "text/csv"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

// "2025-10-01T00:00:00Z" → "2025-10-01 00:00" (UTC, as the API's windows); seconds where there
// are some ("2025-10-01 00:00:30": a 30 s step's bounds).
export function instant(iso: string): string {
  const t = iso.replace("T", " ").replace(/(\.\d+)?Z$/, "");
  return t.endsWith(":00") ? t.slice(0, 16) : t.slice(0, 19);
}
