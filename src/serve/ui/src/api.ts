// The JSON APIs of gpucost serve, relative to the page (so a path prefix of an ingress holds),
// with the bearer token the user gave when serve runs with --token-file.

const TOKEN_KEY = "gpucost.token";

export class NeedToken extends Error {
  constructor(readonly rejected: boolean) {
    super(rejected ? "the token was refused" : "this server needs a token");
  }
}

export class ApiError extends Error {}

export function token(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? "";
}

export function setToken(t: string): void {
  if (t) sessionStorage.setItem(TOKEN_KEY, t);
  else sessionStorage.removeItem(TOKEN_KEY);
}

export async function getJson<T>(path: string, params: Record<string, string> = {}): Promise<T> {
  const query = new URLSearchParams(params).toString();
  const headers: Record<string, string> = { Accept: "application/json" };
  const t = token();
  if (t) headers.Authorization = "Bearer " + t;
  const res = await fetch(path + (query ? "?" + query : ""), { headers });
  if (res.status === 401) throw new NeedToken(t !== "");
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(`${path}: HTTP ${res.status}: ${text.slice(0, 200)}`);
  }
  if (!res.ok) {
    const e = (body as { error?: string }).error;
    throw new ApiError(`${path}: ${e ?? "HTTP " + res.status}`);
  }
  return body as T;
}

export interface Window {
  start: string;
  end: string;
}

export interface LedgerInfo {
  window: Window | null;
  step_s: number;
  clusters: string[];
  teams: string[];  // every team the ledger has counted, for their colours
}

export interface ReportRow {
  [key: string]: string | number | boolean | null | undefined;
  start?: string;
  end?: string;
  gpu_hours: number;
  allocated_usd: number | null;
  effective_usd: number | null;
  waste_usd: number | null;
  idle_usd: number | null;
  utilization: number | null;
  efficiency: number | null;
  unmeasured_gpu_hours: number;
  unpriced_gpu_hours: number;
  estimated: boolean;
  idle?: boolean;
}

export interface Report {
  window: Window;
  step_s: number;
  by: string[];
  accumulated: boolean;
  rows: ReportRow[];
  totals: ReportRow & { cost_usd: number | null; prices_known: boolean };
  // What the ledger's data covers of the window: a window longer than the data costs only this.
  covered?: { start: string; end: string; hours: number; complete: boolean };
  // Hours of capacity by unit kind, present only when some capacity is not GPUs.
  unit_kind_hours?: Record<string, number>;
}

export function report(params: Record<string, string>): Promise<Report> {
  return getJson<Report>("api/v1/report", params);
}

export function ledgerInfo(): Promise<LedgerInfo> {
  return getJson<LedgerInfo>("api/v1/ledger");
}

export interface FleetHolder {
  cluster: string;
  namespace: string;
  pod: string;
  container: string;
  workload: string;
  team: string;
  gpus: number;
  utilization: number | null;
  estimated: boolean;
  usd_per_hour: number | null;
}

export interface FleetUnit {
  kind: "whole" | "mig" | "replica" | "core" | "xcp";
  index: number;
  mig_profile: string;
  fraction: number;
  holdable: boolean;
  idle_gpus: number;
  holders: FleetHolder[];
}

export interface FleetGpu {
  uuid: string;
  units: FleetUnit[];
}

export interface FleetNode {
  cluster: string;
  name: string;
  gpu_model: string;
  instance_type: string;
  capacity_type: string;
  sharing: string;
  replicas: number;
  physical_gpus: number;
  allocated_gpus: number;
  idle_gpus: number;
  seen_fraction: number;
  usd_per_gpu_hour: number | null;
  price_source: string;
  gpus: FleetGpu[];
  // "neuron_device" on AWS Neuron nodes (their hours are accelerator-hours); absent on GPU nodes.
  unit_kind?: string;
}

export interface Fleet {
  window: Window | null;
  nodes: FleetNode[];
}

export function fleet(params: Record<string, string>): Promise<Fleet> {
  return getJson<Fleet>("api/v1/fleet", params);
}

export interface Alert {
  alertname: string;
  severity: string;
  labels: Record<string, string>;
  annotations: { summary: string; description: string };
  starts_at: string;
  value: number | null;
}

export interface Alerts {
  as_of: string;
  window: Window;
  firing: number;
  alerts: Alert[];
}

export function alerts(params: Record<string, string>): Promise<Alerts> {
  return getJson<Alerts>("api/v1/alerts", params);
}

export interface RecommendationEvidence {
  window_hours: number;
  gpu_hours: number;
  measured_fraction: number | null;
  utilization_mean: number | null;
  utilization_p50: number | null;
  utilization_p90: number | null;
  utilization_p95: number | null;
  utilization_p99: number | null;
  utilization_max: number | null;
  idle_gpu_hours: number;
  idle_hours: number;
  longest_idle_run_hours: number;
  idle_at_end: boolean;
}

export interface Recommendation {
  kind: string;
  cluster: string;
  namespace: string;
  workload_kind: string;
  workload: string | null;  // null for one-off Jobs grouped per namespace: their names are `jobs`
  jobs: string[];
  team: string;
  category: string;
  action: string;
  monthly_cost_usd: number | null;
  monthly_savings_usd: number | null;
  savings_note: string;
  risk: string;
  risk_note: string;
  evidence: RecommendationEvidence;
}

export interface Recommendations {
  window: Window;
  idle_threshold: number;
  workloads: number;
  monthly_savings_usd: number | null;  // null: every recommendation's savings are unknown
  unknown_savings: number;
  unmeasured_gpu_hours: number;
  min_window_hours: number;
  window_too_short: boolean;
  recommendations: Recommendation[];
}

export function recommendations(params: Record<string, string>): Promise<Recommendations> {
  return getJson<Recommendations>("api/v1/recommendations", params);
}
