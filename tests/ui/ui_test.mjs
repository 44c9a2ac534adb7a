// The web UI in a real browser: Debian's Chromium, driven by puppeteer-core over the DevTools
// protocol, against `gpucost serve --read-only` started here on 127.0.0.1 (any free port, under
// a path prefix, with a token) over a ledger of a simulated cluster. Every page loads with no
// console error; the figures on screen are the API's (and the CLI's) for the same window; the
// filters and the drill-down change the URL and the figures; the token flow works; axe-core
// finds no serious or critical violation; a second ledger with AWS Neuron nodes shows devices
// priced per accelerator-hour and its unit kinds with the API's dollars; further ledgers show AMD
// partitions and GPUs that DRA claims hand out. Screenshots go to OUT.
//
//   node ui_test.mjs --gpucost BIN --modules NODE_MODULES --out OUT [--chromium PATH]
// Exit 0 when every check holds; each failure is printed.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const require = createRequire(join(resolve(args.modules), "noop.js"));
const puppeteer = require("puppeteer-core");
const axe = require("axe-core");
const gpucost = args.gpucost;
const out = args.out;
mkdirSync(out, { recursive: true });

const started = Date.now();
const failures = [];
const phase = (name) => console.log(`${((Date.now() - started) / 1000).toFixed(1)} s: ${name}`);
function check(ok, what) {
  if (!ok) {
    failures.push(what);
    console.error("FAIL: " + what);
  }
}
function equal(actual, expected, what) {
  check(actual === expected, `${what}: got ${JSON.stringify(actual)}, want ${JSON.stringify(expected)}`);
}

// The one rounding rule (docs/report.md "Rounding"), written again here on purpose: the UI's
// copy is what is under test.
function cents(v) {
  const fine = Math.round(Math.abs(v) * 1e6);
  const whole = Math.floor(fine / 10000);
  const units = fine % 10000 >= 5000 ? whole + 1 : whole;
  return v < 0 ? -units : units;
}
function money(v) {
  if (v === null || v === undefined) return "–";
  const c = cents(v);
  return (c < 0 ? "-$" : "$") + hoursText(Math.abs(v));
}
function hoursText(v) {
  const abs = Math.abs(cents(v));
  return (v < 0 ? "-" : "") + Math.floor(abs / 100).toLocaleString("en-US") + "." + String(abs % 100).padStart(2, "0");
}

// A simulated cluster of every sharing mode over 30 hours, written to a ledger.
const dir = mkdtempSync(join(tmpdir(), "gpucost-ui-"));
const ledger = join(dir, "costs.db");
execFileSync(gpucost, ["simulate", "--nodes", "5", "--seed", "11", "--duration", "30h",
  "--scrape-interval", "5m", "--sharing", "whole:1,mig:1,time-slicing:1,mps:1,hami:1",
  "--out", join(dir, "sim.om.gz")], { stdio: "ignore" });
execFileSync(gpucost, ["ledger", "write", ledger, "--input", join(dir, "sim.om.gz"), "--step", "5m",
  "--max-warnings", "0"], { stdio: ["ignore", "ignore", "ignore"] });
const token = randomBytes(16).toString("hex");
writeFileSync(join(dir, "token"), token + "\n");

// The address a serve started on a free port names in its first line.
function servedAt(proc) {
  return new Promise((resolve, reject) => {
    let text = "";
    proc.stdout.on("data", (d) => {
      text += d;
      const m = text.match(/gpucost serve: (http:\/\/127\.0\.0\.1:\d+)/);
      if (m) resolve(m[1]);
    });
    proc.on("exit", (code) => reject(new Error("serve exited " + code)));
  });
}

// A read-only serve of a ledger of a simulated hour (`simulate` with `sim`, scrapes every 5 min),
// with the Kubernetes objects of its DRA nodes when `objects`.
function servedFleet(name, sim, objects = false) {
  const om = join(dir, name + ".om.gz"), json = join(dir, name + ".json"), db = join(dir, name + ".db");
  execFileSync(gpucost, ["simulate", "--seed", "7", "--duration", "1h", "--scrape-interval", "5m", ...sim,
    "--out", om, ...(objects ? ["--kube-objects-out", json] : [])], { stdio: "ignore" });
  execFileSync(gpucost, ["ledger", "write", db, "--input", om, ...(objects ? ["--kube-objects", json] : []),
    "--step", "5m"], { stdio: ["ignore", "ignore", "ignore"] });
  return spawn(gpucost, ["serve", "--read-only", "--ledger", db, "--listen", "127.0.0.1:0"],
    { stdio: ["ignore", "pipe", "inherit"] });
}

// serve on a free port; its first line names it.
const serve = spawn(gpucost, ["serve", "--read-only", "--ledger", ledger, "--listen", "127.0.0.1:0",
  "--token-file", join(dir, "token"), "--path-prefix", "/gpucost"], { stdio: ["ignore", "pipe", "inherit"] });
const base = await servedAt(serve);
const ui = base + "/gpucost/";

async function api(path, params = {}) {
  const res = await fetch(base + path + "?" + new URLSearchParams(params), {
    headers: { Authorization: "Bearer " + token },
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

let browser;
try {
  // The API and the UI's files: the files need no token, the API does.
  equal((await fetch(ui + "app.js")).status, 200, "app.js under the prefix");
  equal((await fetch(base + "/")).status, 200, "/ without the prefix");
  equal((await fetch(base + "/api/v1/report")).status, 401, "the API without a token");
  const info = await api("/gpucost/api/v1/ledger");
  check(info.window !== null && info.step_s === 300, "/api/v1/ledger: " + JSON.stringify(info));

  browser = await puppeteer.launch({
    executablePath: args.chromium ?? "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--font-render-hinting=none"],
  });
  const page = await browser.newPage();
  // axe-core is injected as an inline script, which the UI's Content-Security-Policy forbids.
  await page.setBypassCSP(true);
  await page.setViewport({ width: 1280, height: 800 });
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  // 401s of the token flow are expected answers, not errors of the page.
  const expected401 = (t) => /401/.test(t);

  let ready = 0;
  // The fleet page of a serve started apart (servedFleet), open in the browser, and its API's
  // answer.
  async function openFleet(proc) {
    const at = await servedAt(proc);
    await page.goto(at + "/#/fleet", { waitUntil: "load" });
    ready = 0;
    await settled();
    return (await fetch(at + "/api/v1/fleet")).json();
  }
  async function settled() {
    await page.waitForFunction((n) => Number(document.body.dataset.ready ?? 0) > n &&
      !document.querySelector("main[aria-busy]"), { timeout: 15000 }, ready);
    ready = Number(await page.evaluate(() => document.body.dataset.ready));
  }
  async function go(hash) {
    await page.evaluate((h) => { location.hash = h; }, hash);
    await settled();
  }
  const text = (sel) => page.$eval(sel, (e) => e.textContent.trim());
  const texts = (sel) => page.$$eval(sel, (es) => es.map((e) => e.textContent.trim()));
  // The chart's legend: each entry's label and value.
  const legendValues = () => page.$$eval(".u-legend tr.u-series", (rows) => Object.fromEntries(rows
    .map((r) => [r.querySelector(".u-label").textContent.trim(), r.querySelector(".u-value").textContent.trim()])));
  async function accessible(name) {
    await page.addScriptTag({ content: axe.source });
    const r = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
    const bad = r.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
    check(bad.length === 0, `${name}: axe: ` + bad.map((v) => `${v.id} (${v.nodes.length}): ${v.nodes[0]?.target}`).join("; "));
  }
  async function shot(name, fullPage = false) {
    await page.screenshot({ path: join(out, name + ".png"), fullPage });
  }

  phase("the token flow");
  // The token flow: asked, a wrong token refused, the right one opens the overview.
  await page.goto(ui + "#/overview?window=all&by=team", { waitUntil: "load" });
  await settled();
  check(await page.$("#token") !== null, "a token is asked for");
  await page.type("#token", "wrong");
  await page.click("form.token button[type=submit]");
  await settled();
  check((await text("form.token")).includes("refused"), "a wrong token is refused");
  await accessible("token page");
  await page.$eval("#token", (e) => { e.value = ""; });
  await page.type("#token", token);
  await page.click("form.token button[type=submit]");
  await settled();
  check(await page.$("[data-kpi=cost_usd]") !== null, "the overview opens with the token");
  // Signing out forgets the token: the next page asks again.
  check(await page.$eval("#signout", (e) => !e.hidden), "a way to sign out once signed in");
  await Promise.all([page.click("#signout"), settled()]);
  check(await page.$("#token") !== null, "signed out, the token is asked for again");
  check(await page.evaluate(() => sessionStorage.length === 0), "signed out, the tab keeps no token");
  await page.type("#token", token);
  await page.click("form.token button[type=submit]");
  await settled();
  check(await page.$("[data-kpi=cost_usd]") !== null, "signed in again");

  phase("overview");
  // Overview: the window's figures are the API's and the CLI's.
  const w = await page.$eval("[data-window]", (e) => e.dataset.window);
  equal(w, info.window.start + "," + info.window.end, "window=all is the ledger's span");
  const byTeam = await api("/api/v1/report", { window: w, by: "team" });
  const cli = JSON.parse(execFileSync(gpucost, ["report", "--ledger", ledger, "--window", w, "--by", "team",
    "--accumulate", "--format", "json"], { stdio: ["ignore", "pipe", "ignore"] }));
  for (const k of ["cost_usd", "allocated_usd", "effective_usd", "waste_usd", "idle_usd"]) {
    equal(await text(`[data-kpi=${k}]`), money(byTeam.totals[k]), `overview ${k}`);
    equal(money(cli.totals[k]), money(byTeam.totals[k]), `CLI and API ${k}`);
  }
  // Each team's colour in the chart's legend, to compare with the fleet's map below.
  const chartColors = await page.$$eval(".u-legend tr.u-series", (rows) => Object.fromEntries(rows
    .filter((r) => r.querySelector(".u-marker"))
    .map((r) => [r.querySelector(".u-label").textContent.trim(), getComputedStyle(r.querySelector(".u-marker")).borderTopColor])));
  const shown = await texts("table[data-table=cost-by-team] tbody td[data-col=allocated_usd]");
  equal(JSON.stringify(shown), JSON.stringify(byTeam.rows.map((r) => money(r.allocated_usd))), "overview rows");
  // With the cursor off the chart, its legend holds each team's money over the window, as the
  // table does, and the idle capacity's, as its tile does; never a label with nothing after it.
  const legend = await legendValues();
  equal(legend["time (UTC)"], "window total", "the chart legend's time off the chart");
  equal(legend.idle, await text("[data-kpi=idle_usd]"), "the chart legend's idle capacity");
  for (const r of byTeam.rows.filter((r) => r.team !== "__idle__" && r.idle !== true && r.team in legend)) {
    equal(legend[r.team], money(r.allocated_usd), `the chart legend's ${r.team}`);
  }
  check(byTeam.rows.filter((r) => r.team in legend).length >= 3, "the chart legend names the teams: " + JSON.stringify(legend));
  check(/,/.test(await text("[data-kpi=cost_usd]")), "thousands separators");
  check(await page.$(".uplot") !== null, "the chart is drawn");
  // A month of a large fleet's money fits its tile, on a laptop's screen too.
  for (const width of [1400, 1024]) {
    await page.setViewport({ width, height: 900 });
    const clipped = await page.$$eval("[data-kpi]", (es) => es.filter((e) => {
      const was = e.textContent;
      e.textContent = "$12,345,678.90";
      const tile = e.closest(".kpi");
      const over = tile.scrollWidth > tile.clientWidth || e.getBoundingClientRect().right > tile.getBoundingClientRect().right;
      e.textContent = was;
      return over;
    }).map((e) => e.dataset.kpi));
    equal(JSON.stringify(clipped), "[]", `tiles that clip $12,345,678.90 at ${width} px`);
  }
  await page.setViewport({ width: 1280, height: 800 });
  // A table's CSV is named for the window it holds, so that two downloads are told apart.
  const csvFile = await page.evaluate(() => new Promise((resolve) => {
    const click = HTMLAnchorElement.prototype.click;
    HTMLAnchorElement.prototype.click = function () { HTMLAnchorElement.prototype.click = click; resolve(this.download); };
    document.querySelector("table[data-table=cost-by-team]").closest("section").querySelector("button.csv").click();
  }));
  const [ws, we] = w.split(",").map((t) => t.replace(/:00Z$/, "Z").replace(/:/g, ""));
  equal(csvFile, `cost-by-team_${ws}_${we}.csv`, "the overview's CSV file name");
  await shot("overview");
  await accessible("overview");
  // The last 12 hours against the 12 before: the total cost (the capacity's) and the allocated.
  {
    const was = await page.evaluate(() => location.hash);
    const end = Date.parse(info.window.end);
    const iso = (t) => new Date(t).toISOString().replace(".000", "");
    await go(`#/overview?from=${iso(end - 12 * 3600e3)}&to=${iso(end)}&by=team`);
    const [now, before] = await Promise.all([
      api("/api/v1/report", { window: iso(end - 12 * 3600e3) + "," + iso(end), by: "team" }),
      api("/api/v1/report", { window: iso(end - 24 * 3600e3) + "," + iso(end - 12 * 3600e3), by: "team" })]);
    const pct = (a, b) => { const d = (a - b) / Math.abs(b); return (d >= 0 ? "+" : "") + (Math.round(d * 1000) / 10).toFixed(1) + "%"; };
    equal(await text("[data-change]"), `Against the previous period of the same length: total cost ${pct(now.totals.cost_usd, before.totals.cost_usd)} ` +
      `(${money(before.totals.cost_usd)} before), allocated ${pct(now.totals.allocated_usd, before.totals.allocated_usd)} (${money(before.totals.allocated_usd)} before).`,
    "the change from the period before, of the total and of the allocated cost");
    await go(was);
  }

  phase("filters");
  // Filters: stacking by namespace and a shorter window change the URL and the figures.
  await page.select("#by", "namespace");
  await settled();
  check(page.url().includes("by=namespace"), "by= in the URL: " + page.url());
  const byNs = await api("/api/v1/report", { window: w, by: "namespace" });
  equal(JSON.stringify(await texts("table[data-table=cost-by-namespace] tbody th")),
    JSON.stringify(byNs.rows.map((r) => (r.namespace === "__idle__" ? "idle capacity" : r.namespace))), "namespace rows");
  // The total row is no group to follow: no link.
  equal((await page.$$("table[data-table=cost-by-namespace] tfoot a")).length, 0, "the total row is not a link");
  // A namespace row drills into that namespace's workloads (no team in the link).
  const firstNs = byNs.rows.find((r) => r.namespace !== "__idle__").namespace;
  await Promise.all([page.click("table[data-table=cost-by-namespace] tbody th a"), settled()]);
  check(page.url().includes("namespace=" + encodeURIComponent(firstNs)), "namespace= in the URL: " + page.url());
  const nsw = (await api("/api/v1/report", { window: w, by: "namespace,workload" })).rows.filter((r) => r.namespace === firstNs);
  equal(JSON.stringify(await texts("table[data-table=drill-workload] tbody td[data-col=allocated_usd]")),
    JSON.stringify(nsw.map((r) => money(r.allocated_usd))), "the workloads of namespace " + firstNs);
  await Promise.all([page.evaluate(() => history.back()), settled()]);
  check(page.url().includes("by=namespace") && !page.url().includes("drill"), "back on the overview: " + page.url());
  await page.select("#window", "24h");
  await settled();
  check(page.url().includes("window=24h"), "window= in the URL");
  // The other pages open with the window chosen here.
  equal(await page.$eval("nav a[data-page=drill]", (a) => a.getAttribute("href")), "#/drill?window=24h",
    "the navigation keeps the window");
  const w24 = await page.$eval("[data-window]", (e) => e.dataset.window);
  check(w24 !== w, "the 24 h window differs from the whole span");
  const day = await api("/api/v1/report", { window: w24, by: "namespace" });
  equal(await text("[data-kpi=cost_usd]"), money(day.totals.cost_usd), "24 h cost");
  check(day.totals.cost_usd < byNs.totals.cost_usd, "24 h costs less than 30 h");

  // A cluster this ledger does not hold, and a custom range off the ledger's steps: said, with a
  // way back to the page's defaults; the range is taken to the steps it touches.
  await go("#/overview?cluster=nosuch");
  check((await text("main")).includes("no cluster named nosuch"), "an unknown cluster is named: " + await text("main"));
  check(await page.$("main a[data-reset]") !== null, "a way back from an unknown cluster");
  const offFrom = new Date(Date.parse(info.window.start) + 7000).toISOString().replace(/\.\d{3}Z$/, "Z");
  await go(`#/overview?from=${offFrom}&to=${info.window.end}`);
  equal(await page.$eval("[data-window]", (e) => e.dataset.window), info.window.start + "," + info.window.end,
    "a custom range off the steps is taken to the steps it touches");
  // A window the page cannot use shows the default, says so, and the picker shows what is shown.
  await go("#/overview?window=bogus");
  equal(await page.$eval("#window", (e) => e.value), "7d", "an unknown window name shows the last 7 days");
  check((await text(".window-note")).includes('No window named "bogus"'), "and says so");
  await go("#/overview?from=2099-01-01T00:00:00Z&to=2099-01-02T00:00:00Z");
  equal(await page.$eval("#window", (e) => e.value), "7d", "a range without data shows the last 7 days");
  check((await text(".window-note")).includes("holds none of the ledger's data"), "and says so");
  // A backwards range, or one that is not dates, is told as what it is.
  await go(`#/overview?from=${info.window.end}&to=${info.window.start}`);
  check((await text(".window-note")).includes("ends before it starts"), "a backwards range is said: " + await text(".window-note"));
  await go("#/overview?from=abc&to=def");
  check((await text(".window-note")).includes("needs a From and a To that are dates"), "a range of no dates is said: " + await text(".window-note"));

  phase("drill-down");
  // Drill-down: team → namespace → workload, each level the API's rows for its path.
  await go("#/drill?window=all");
  const teams = byTeam.rows.filter((r) => r.team !== "__idle__");
  equal(JSON.stringify(await texts("table[data-table=drill-team] tbody td[data-col=allocated_usd]")),
    JSON.stringify(teams.map((r) => money(r.allocated_usd))), "drill-down teams");
  // Its totals are of held capacity (the overview's add idle capacity), and say so.
  equal(JSON.stringify(await page.$$eval(".kpi-label", (es) => es.map((e) => e.textContent))),
    JSON.stringify(["Allocated", "Effective", "Waste of held GPUs", "Held GPU-hours", "Efficiency", "Measured"]),
    "the drill-down's totals are named as held capacity");
  const teamsCents = teams.reduce((a, r) => a + cents(r.gpu_hours), 0);
  check(Math.abs(cents(Number((await text("[data-kpi=gpu_hours]")).replace(/,/g, ""))) - teamsCents) <= teams.length,
    "held GPU-hours are the teams' hours");
  const team = teams[0].team;
  await Promise.all([page.click(`table[data-table=drill-team] tbody th a`), settled()]);
  check(page.url().includes("team=" + encodeURIComponent(team)), "team= in the URL");
  const tn = (await api("/api/v1/report", { window: w, by: "team,namespace" })).rows.filter((r) => r.team === team);
  equal(JSON.stringify(await texts("table[data-table=drill-namespace] tbody td[data-col=allocated_usd]")),
    JSON.stringify(tn.map((r) => money(r.allocated_usd))), "drill-down namespaces of " + team);
  check(await page.$(".uplot") !== null, "utilization over time is drawn");
  // The total row's utilization is the team's (over the measured part), not "–".
  const footUtil = await page.$eval("table[data-table=drill-namespace] tfoot td[data-col=utilization]", (e) => e.textContent.trim());
  const teamUtil = teams[0].utilization;
  check(teamUtil !== null && Math.abs(parseFloat(footUtil) - teamUtil * 100) <= 0.051,
    `the namespaces' total utilization is the team's: ${footUtil} against ${teamUtil}`);
  const ns = tn[0].namespace;
  await Promise.all([page.click(`table[data-table=drill-namespace] tbody th a`), settled()]);
  check(page.url().includes("namespace=" + encodeURIComponent(ns)), "namespace= in the URL");
  const tnw = (await api("/api/v1/report", { window: w, by: "team,namespace,workload" }))
    .rows.filter((r) => r.team === team && r.namespace === ns);
  equal(JSON.stringify(await texts("table[data-table=drill-workload] tbody td[data-col=allocated_usd]")),
    JSON.stringify(tnw.map((r) => money(r.allocated_usd))), "drill-down workloads");
  check((await texts("table[data-table=drill-workload] tbody td[data-col=measured]")).every((t) => /measured/.test(t)),
    "each workload says how it was measured");
  // A group with nothing in the window is measured no way.
  await go("#/drill?team=nosuchteam");
  equal(await text("table[data-table=drill-namespace] tfoot td[data-col=measured]"), "–", "an empty group's total says how measured");
  await go(`#/drill?team=${encodeURIComponent(team)}&namespace=${encodeURIComponent(ns)}`);
  await shot("drill");
  await accessible("drill-down");

  phase("fleet");
  // Fleet: every node, its price and source, MIG slices and replicas with their holders.
  await go("#/fleet");
  const fleet = await api("/api/v1/fleet");
  equal((await page.$$("article.node")).length, fleet.nodes.length, "fleet nodes");
  equal(JSON.stringify(await texts("article.node .price")),
    JSON.stringify(fleet.nodes.map((n) => `${money(n.usd_per_gpu_hour)} per GPU-hour (${n.price_source})`)), "node prices");
  check((await page.$$("[data-unit=mig]")).length > 0, "MIG slices are drawn");
  check((await page.$$("[data-unit=replica]")).length > 0, "replicas are drawn");
  const holders = fleet.nodes.flatMap((n) => n.gpus.flatMap((g) => g.units.flatMap((u) => u.holders)));
  equal((await page.$$(".part[data-holder]")).length, holders.length, "every holder of every unit");
  // Each node's held and idle GPUs add up to its GPUs, over the part of the step it was seen, and
  // a card says so only of a node seen for part of the step.
  for (const n of fleet.nodes) {
    check(Math.abs(n.allocated_gpus + n.idle_gpus - n.physical_gpus) < 1e-6,
      `${n.name}: ${n.allocated_gpus} held + ${n.idle_gpus} idle of ${n.physical_gpus}`);
  }
  equal((await page.$$("article.node .seen")).length, fleet.nodes.filter((n) => n.seen_fraction < 0.999).length,
    "nodes seen for part of the step");
  // A team is one colour on every page: the fleet's legend and the overview's chart.
  const mapColors = await page.$$eval('.legend[aria-label="Teams"] .swatch', (ss) => Object.fromEntries(ss
    .filter((x) => !x.querySelector("i.idle"))
    .map((x) => [x.textContent.trim(), getComputedStyle(x.querySelector("i")).backgroundColor])));
  const common = Object.keys(mapColors).filter((t) => t in chartColors);
  check(common.length >= 2, `teams on both the chart and the map: ${JSON.stringify(common)}`);
  for (const t of common) equal(mapColors[t], chartColors[t], `${t}'s colour on the map and the chart`);
  await shot("fleet");
  await shot("fleet-full", true);
  await accessible("fleet");

  phase("chargeback");
  // Chargeback: the month's teams, then one team's statement.
  await go("#/chargeback");
  const month = await page.$eval("#month", (e) => e.value);
  const [y, m] = month.split("-").map(Number);
  const mw = new Date(Date.UTC(y, m - 1, 1)).toISOString().replace(".000", "") + "," +
    new Date(Date.UTC(y, m, 1)).toISOString().replace(".000", "");
  const cb = (await api("/api/v1/report", { window: mw, by: "team" })).rows.filter((r) => r.team !== "__idle__");
  equal(JSON.stringify(await texts(`table[data-table=chargeback-${month}] tbody td[data-col=allocated_usd]`)),
    JSON.stringify(cb.map((r) => money(r.allocated_usd))), "chargeback teams");
  await Promise.all([page.click(`table[data-table=chargeback-${month}] tbody th a`), settled()]);
  check(page.url().includes("team="), "the statement's team in the URL");
  equal(await text("[data-amount]"), money(cb[0].allocated_usd), "the statement's amount");
  // The lines' and the workloads' total rows add up to the amount due.
  const footTotals = await page.$$eval("table[data-table^=statement-] tfoot td[data-col=allocated_usd]", (es) => es.map((e) => e.textContent.trim()));
  equal(JSON.stringify(footTotals), JSON.stringify([money(cb[0].allocated_usd), money(cb[0].allocated_usd)]),
    "the statement tables' totals");
  // Idle capacity (GPUs nobody held) is named apart from a held GPU left idle, which is waste.
  const idleHead = (await page.$$eval("table[data-table^=statement-] thead th[title]", (es) => es.map((e) => [e.textContent.trim(), e.title])))
    .find((x) => x[0] === "Idle capacity") ?? ["", ""];
  equal(idleHead[0], "Idle capacity", "the idle column's name");
  check(idleHead[1].includes("nobody held"), "the idle column says what it counts: " + idleHead[1]);
  // Where the lines as shown do not add up to the amount due, a rounding line says by how much.
  const shownCents = (await texts("table[data-table$=-lines] tbody td[data-col=allocated_usd]"))
    .reduce((a, t) => a + Math.round(Number(t.replace(/[$,]/g, "")) * 100), 0);
  const roundingCents = cents(cb[0].allocated_usd) - shownCents;
  if (roundingCents === 0) check(await page.$("[data-rounding]") === null, "no rounding line where the lines add up");
  else check((await text("[data-rounding]")).startsWith(`Rounding: ${money(roundingCents / 100)}`), "the rounding line: " + await text("[data-rounding]"));
  // A month the ledger covers part of says so, as `gpucost chargeback` does; the months offered
  // are those the ledger holds some of.
  const covered = (await api("/api/v1/report", { window: mw, by: "team" })).covered;
  const whole = Date.parse(covered.start) <= Date.parse(mw.split(",")[0]) && Date.parse(covered.end) >= Date.parse(mw.split(",")[1]);
  check(!whole, "the simulated ledger holds part of its month: " + JSON.stringify(covered));
  check((await text("[data-coverage]")).includes(`covers ${covered.start.slice(0, 16).replace("T", " ")} to ${covered.end.slice(0, 16).replace("T", " ")} UTC of this month only; the rest is not charged`),
    "the month's coverage is said: " + await text("[data-coverage]"));
  const offered = await page.$$eval("#month option", (es) => es.map((e) => e.value));
  for (const o of offered) {
    const [oy, om] = o.split("-").map(Number);
    check(Date.UTC(oy, om, 1) > Date.parse(info.window.start) && Date.UTC(oy, om - 1, 1) < Date.parse(info.window.end),
      `month ${o} is one the ledger holds some of (${info.window.start} to ${info.window.end})`);
  }
  // Printed on Letter paper (740 px across), every column of the statement is on the page.
  await page.setViewport({ width: 740, height: 1000 });
  await page.emulateMediaType("print");
  const cut = await page.$$eval("table[data-table^=statement-]", (ts) => ts.filter((t) => t.scrollWidth > t.parentElement.clientWidth + 1 ||
    t.getBoundingClientRect().right > document.documentElement.clientWidth + 1).map((t) => t.dataset.table));
  equal(JSON.stringify(cut), "[]", "statement tables cut off in print");
  await page.emulateMediaType(null);
  await page.setViewport({ width: 1280, height: 800 });
  // A month the ledger holds nothing of is said, not silently replaced.
  await go("#/chargeback?month=1999-01");
  check((await text("[data-month-note]")).includes("holds nothing of 1999-01"), "an absent month is said");
  await go(`#/chargeback?month=${month}&team=${encodeURIComponent(cb[0].team)}`);
  await shot("chargeback");
  await accessible("chargeback");

  phase("savings");
  // Savings: the recommendations of the API and of `gpucost recommend --ledger`, the same dollars.
  await go("#/savings?window=all");
  const sw = await page.$eval("[data-window]", (e) => e.dataset.window);
  const recs = await api("/api/v1/recommendations", { window: sw });
  const cliRecs = JSON.parse(execFileSync(gpucost, ["recommend", "--ledger", ledger, "--window", sw,
    "--format", "json"], { stdio: ["ignore", "pipe", "ignore"] }));
  check(recs.recommendations.length > 0, "the simulated cluster has something to save");
  equal(money(recs.monthly_savings_usd), money(cliRecs.monthly_savings_usd), "the API's savings are the CLI's");
  equal(recs.recommendations.length, cliRecs.recommendations.length, "as many recommendations as the CLI");
  equal(await text("[data-kpi=savings]"), money(recs.monthly_savings_usd), "savings shown");
  equal(JSON.stringify(await texts("table[data-table=recommendations] tbody th")),
    JSON.stringify(recs.recommendations.map((r) => (r.monthly_savings_usd === null ? "unknown" : money(r.monthly_savings_usd)))),
    "each recommendation's savings");
  equal(JSON.stringify(await texts("table[data-table=recommendations] tbody td[data-col=workload]")),
    JSON.stringify(recs.recommendations.map((r) => `${r.namespace}/${r.workload ?? `${r.jobs.length} Job${r.jobs.length === 1 ? "" : "s"}`}`)),
    "each recommendation's workload (one-off Jobs grouped: their count)");
  check(recs.recommendations.some((r) => r.workload === null && r.jobs.length > 0),
    "the simulated cluster's one-off Jobs are grouped, named in jobs");
  // Each workload links to its own drill-down; grouped Jobs to their namespace's.
  const recLinks = await page.$$eval("table[data-table=recommendations] tbody td[data-col=workload] a",
    (es) => es.map((e) => { const p = new URLSearchParams(e.getAttribute("href").split("?")[1] ?? ""); return [p.get("namespace"), p.get("workload")]; }));
  equal(JSON.stringify(recLinks),
    JSON.stringify(recs.recommendations.map((r) => [r.namespace, r.workload])), "each recommendation links to its workload");
  await shot("savings");
  await accessible("savings");

  phase("alerts");
  // Alerts: the rules on the ledger, as the API and `gpucost alerts --ledger` give them.
  await go("#/alerts?window=all");
  const aw = await page.$eval("[data-window]", (e) => e.dataset.window);
  const fired = await api("/api/v1/alerts", { window: aw });
  // (exit status 1: alerts fire)
  const cliAlerts = JSON.parse(spawnSync(gpucost, ["alerts", "--ledger", ledger, "--window", aw,
    "--format", "json"], { stdio: ["ignore", "pipe", "ignore"] }).stdout.toString() || "{}");
  check(fired.firing > 0, "the simulated cluster fires alerts");
  equal(fired.firing, cliAlerts.firing, "the API's alerts are the CLI's");
  equal(JSON.stringify(await texts("table[data-table=alerts] tbody td[data-col=summary]")),
    JSON.stringify(fired.alerts.map((a) => a.annotations.summary)), "alerts shown");
  equal(JSON.stringify(await texts("table[data-table=alerts] tbody td[data-col=description]")),
    JSON.stringify(fired.alerts.map((a) => a.annotations.description)), "each alert's details");
  check(fired.alerts.some((a) => a.annotations.description.includes("over the last 1d")), "a ratio's window is in its details");
  await shot("alerts");
  await accessible("alerts");

  phase("a phone");
  // A phone.
  // (a mobile viewport reloads the page; the token stays in the tab's session storage)
  await page.setViewport({ width: 390, height: 844, isMobile: true, hasTouch: true });
  // (a new document: a fragment change alone raced the reload and left the alerts page drawn)
  await page.goto("about:blank");
  await page.goto(ui + "#/overview?window=all&by=team", { waitUntil: "load" });
  ready = 0;
  await settled();
  check(await page.$("[data-kpi=cost_usd]") !== null, "the phone's overview opens without asking again");
  for (const [name, hash] of [["overview", ""], ["drill", "#/drill?window=all&team=" + encodeURIComponent(team)],
    ["fleet", "#/fleet"], ["chargeback", "#/chargeback"], ["savings", "#/savings?window=all"],
    ["alerts", "#/alerts"]]) {
    if (hash) await go(hash);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 0, `the ${name} page fits a phone's width (overflows by ${overflow}px)`);
    // Each table row is a card of its own: every cell on the screen, named by its column.
    const offscreen = await page.$$eval("table[data-table] tbody td, table[data-table] tbody th", (cells) =>
      cells.filter((c) => c.getBoundingClientRect().right > window.innerWidth + 1 ||
        getComputedStyle(c, "::before").content !== `"${c.getAttribute("data-label")}"`).length);
    check(offscreen === 0, `every table cell of the ${name} page is on a phone's screen, after its column's name (${offscreen} are not)`);
    await shot(name + "-phone");
  }

  phase("accelerators");
  // AWS Neuron nodes beside a GPU node, in a ledger of their own served without a token: the fleet
  // shows devices priced per accelerator-hour, the overview stacks by unit kind with the API's
  // (and the CLI's) dollars and counts GPU- and accelerator-hours, a statement of Neuron devices
  // says accelerator-hours.
  {
    await page.setViewport({ width: 1280, height: 800 });
    const nledger = join(dir, "neuron.db");
    execFileSync(gpucost, ["simulate", "--nodes", "3", "--seed", "7", "--duration", "3h",
      "--scrape-interval", "5m", "--gpu-models", "a100-80gb:1,trn1:1,inf2:1",
      "--out", join(dir, "neuron.om.gz")], { stdio: "ignore" });
    execFileSync(gpucost, ["ledger", "write", nledger, "--input", join(dir, "neuron.om.gz"), "--step", "5m",
      "--max-warnings", "0"], { stdio: ["ignore", "ignore", "ignore"] });
    const nserve = spawn(gpucost, ["serve", "--read-only", "--ledger", nledger, "--listen", "127.0.0.1:0"],
      { stdio: ["ignore", "pipe", "inherit"] });
    try {
      const nbase = await servedAt(nserve);
      const napi = async (path, params = {}) => (await fetch(nbase + path + "?" + new URLSearchParams(params))).json();
      await page.goto(nbase + "/#/fleet", { waitUntil: "load" });
      ready = 0;
      await settled();
      const nfleet = await napi("/api/v1/fleet");
      const kinds = nfleet.nodes.map((n) => n.unit_kind ?? "gpu");
      check(kinds.includes("neuron_device") && kinds.includes("gpu"), "a GPU node and Neuron nodes: " + kinds);
      equal(JSON.stringify(await texts("article.node .price")),
        JSON.stringify(nfleet.nodes.map((n) => `${money(n.usd_per_gpu_hour)} per ${n.unit_kind === "neuron_device" ? "accelerator-hour" : "GPU-hour"} (${n.price_source})`)),
        "Neuron nodes priced per accelerator-hour");
      const neuronNode = nfleet.nodes.find((n) => n.unit_kind === "neuron_device");
      equal(await text(`article.node[data-node="${neuronNode.name}"] .gpu-label`), "Device 0", "a Neuron node's devices");
      check((await text(`article.node[data-node="${neuronNode.name}"]`)).includes("Neuron devices held"), "a Neuron node's devices held");
      check((await page.$$("[data-unit-kind=gpu] .gpu-label")).length > 0 &&
        (await texts("[data-unit-kind=gpu] .gpu-label")).every((t) => /^GPU \d+$/.test(t)), "GPU nodes keep their GPUs");
      await shot("fleet-neuron", true);
      await accessible("fleet with Neuron nodes");

      await go("#/overview?window=all&by=unit_kind");
      const nw = await page.$eval("[data-window]", (e) => e.dataset.window);
      const byKind = await napi("/api/v1/report", { window: nw, by: "unit_kind" });
      const cliKind = JSON.parse(execFileSync(gpucost, ["report", "--ledger", nledger, "--window", nw, "--by", "unit_kind",
        "--format", "json"], { stdio: ["ignore", "pipe", "ignore"] }));
      equal(JSON.stringify(await texts("table[data-table=cost-by-unit_kind] tbody td[data-col=allocated_usd]")),
        JSON.stringify(byKind.rows.map((r) => money(r.allocated_usd))), "unit kind rows");
      equal(JSON.stringify(byKind.rows.map((r) => money(r.allocated_usd))),
        JSON.stringify(cliKind.rows.map((r) => money(r.allocated_usd))), "the API's unit kind rows are the CLI's");
      check((await texts("table[data-table=cost-by-unit_kind] tbody th")).some((t) => t === "neuron_device"), "a neuron_device row");
      equal(await page.$eval("[data-kpi=gpu_hours]", (e) => e.previousElementSibling.textContent), "GPU- and accelerator-hours", "the hours KPI names both");
      await shot("overview-unit-kind");

      await go("#/chargeback");
      const nmonth = await page.$eval("#month", (e) => e.value);
      const [ny, nm] = nmonth.split("-").map(Number);
      const nmw = new Date(Date.UTC(ny, nm - 1, 1)).toISOString().replace(".000", "") + "," +
        new Date(Date.UTC(ny, nm, 1)).toISOString().replace(".000", "");
      const lines = (await napi("/api/v1/report", { window: nmw, by: "team,unit_kind" })).rows;
      const neuronTeam = lines.find((r) => r.unit_kind === "neuron_device" && r.team !== "__idle__" && !r.idle)?.team;
      check(neuronTeam !== undefined, "a team holds Neuron devices");
      if (neuronTeam !== undefined) {
        const kindsOf = new Set(lines.filter((r) => r.team === neuronTeam).map((r) => r.unit_kind));
        await go(`#/chargeback?month=${nmonth}&team=${encodeURIComponent(neuronTeam)}`);
        check((await text("[data-hours]")).includes(kindsOf.size > 1 ? "GPU- and accelerator-hours" : "accelerator-hours"),
          "the statement says accelerator-hours: " + await text("[data-hours]"));
        await shot("chargeback-neuron");
      }
    } finally {
      nserve.kill("SIGTERM");
    }
  }

  // AMD Instinct GPUs in CPX mode: each GPU's eight compute partitions are its units.
  {
    const aserve = servedFleet("amd", ["--nodes", "1", "--gpu-models", "mi300x-cpx:1", "--sharing", "whole:1"]);
    try {
      const afleet = await openFleet(aserve);
      const amd = afleet.nodes[0];
      check(amd.gpus[0].units.length === 8 && amd.gpus[0].units.every((u) => u.kind === "xcp"), "eight partition units a GPU");
      check((await text(`article.node[data-node="${amd.name}"] .meta`)).includes("8 compute partitions a GPU"),
        "the node says its partitions: " + await text(`article.node[data-node="${amd.name}"] .meta`));
      equal(JSON.stringify((await texts(`article.node[data-node="${amd.name}"] .gpu:first-child .unit-label`))),
        JSON.stringify(["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"]), "partitions labelled");
      await shot("fleet-amd-partitions");
      // No catalog price for the MI300X: a team's statement is an unknown amount, not $0, and says
      // which hours have no price.
      const ateam = amd.gpus.flatMap((g) => g.units).flatMap((u) => u.holders)[0].team;
      await go(`#/chargeback?month=${afleet.window.start.slice(0, 7)}&team=${encodeURIComponent(ateam)}`);
      equal(await text("[data-amount]"), "–", "an unpriced team's amount due is unknown");
      check((await text("[data-unpriced]")).includes("GPU-hours had no known price and are in no amount"),
        "the statement says its unpriced hours: " + await text("[data-unpriced]"));
    } finally {
      aserve.kill("SIGTERM");
    }
  }

  // GPUs handed out by DRA claims (the Kubernetes objects beside the series): NVIDIA's H100s, one
  // shared by two pods and one by consumable capacity; H100s under DynamicMIG, whose claims hold
  // sevenths of a GPU; AMD's MI300X partitions; AWS Trainium2 devices.
  {
    const dserve = servedFleet("dra", ["--nodes", "4", "--gpu-models",
      "h100-dra:1,mi300x-dra:1,h100-dynmig-dra:1,trn2-dra:1"], true);
    try {
      const dfleet = await openFleet(dserve);
      const nv = dfleet.nodes.find((n) => n.name.startsWith("h100-dra"));
      const amd = dfleet.nodes.find((n) => n.name.startsWith("mi300x-dra"));
      const dyn = dfleet.nodes.find((n) => n.name.startsWith("h100-dynmig-dra"));
      const trn = dfleet.nodes.find((n) => n.name.startsWith("trn2-dra"));
      check(nv !== undefined && amd !== undefined && dyn !== undefined && trn !== undefined,
        "every DRA node in the fleet");
      const units = (n) => n.gpus.flatMap((g) => g.units);
      check(units(nv).some((u) => u.holders.length === 2 && u.holders.every((h) => h.gpus === 0.5)),
        "a claim two pods share: half a GPU each");
      check(units(nv).some((u) => u.holders.length === 1 && u.holders[0].gpus === 0.25),
        "a consumable-capacity share: a quarter of a GPU");
      check(units(amd).length === 64 && units(amd).every((u) => u.kind === "xcp" && u.fraction === 0.125),
        "AMD's DRA partitions: 8 units of 1/8 a GPU");
      const sevenths = units(dyn).flatMap((u) => u.holders.map((x) => x.gpus * 7));
      check(units(dyn).every((u) => u.kind === "whole") &&
        sevenths.some((x) => Math.abs(x - 1) < 1e-9) && sevenths.some((x) => Math.abs(x - 3) < 1e-9) &&
        units(dyn).every((u) => u.holders.reduce((a, x) => a + x.gpus, 0) <= 1 + 1e-9),
        "DynamicMIG: whole GPUs whose claims hold sevenths of them");
      check(trn.unit_kind === "neuron_device" && trn.gpus.length === 16 &&
        units(trn).every((u) => u.kind === "core" && u.fraction === 0.25),
        "Trainium2 through Neuron's DRA driver: 16 devices of four cores");
      const dholders = dfleet.nodes.flatMap((n) => units(n).flatMap((u) => u.holders));
      equal((await page.$$(".part[data-holder]")).length, dholders.length, "every DRA holder drawn");
      check((await text(`article.node[data-node="${amd.name}"] .meta`)).includes("8 compute partitions a GPU"),
        "the AMD DRA node says its partitions");
      // Sharing mode "dra": the claims hand the GPUs out, in the cards and the nodes' table.
      equal(JSON.stringify([nv.sharing, amd.sharing, dyn.sharing, trn.sharing]), JSON.stringify(["dra", "dra", "dra", "dra"]),
        "/api/v1/fleet: every node's sharing");
      const nvMeta = await text(`article.node[data-node="${nv.name}"] .meta`);
      check(nvMeta.includes("DRA claims") && !nvMeta.includes("whole GPUs"), "the NVIDIA DRA node says DRA claims: " + nvMeta);
      check((await text(`article.node[data-node="${amd.name}"] .meta`)).includes("8 compute partitions a GPU · DRA claims"),
        "the AMD DRA node says its partitions and DRA claims");
      equal(JSON.stringify(await texts("table[data-table=fleet-nodes] tbody td[data-col=sharing]")),
        JSON.stringify(["dra", "dra", "dra", "dra"]), "the nodes' table: sharing dra");
      // The MI300X and the Trainium2 have no catalog price: the fleet's cost per hour is the H100
      // nodes' alone, and says so rather than count the others as $0.
      check(amd.usd_per_gpu_hour === null && trn.usd_per_gpu_hour === null && nv.usd_per_gpu_hour > 0 &&
        dyn.usd_per_gpu_hour > 0, "two DRA nodes priced, two not");
      equal(await text(".kpi:has([data-kpi=usd_per_hour]) .kpi-label"), "Fleet cost per hour, 2 of 4 nodes priced",
        "the fleet's cost says which nodes it covers");
      equal(await text("[data-kpi=usd_per_hour]"),
        "$" + (nv.usd_per_gpu_hour * nv.physical_gpus + dyn.usd_per_gpu_hour * dyn.physical_gpus).toFixed(2),
        "the fleet's cost per hour: the priced nodes'");
      await shot("fleet-dra", true);
      // Money over capacity without a price: the priced part "+ unknown", never a figure that
      // looks whole, and the unpriced hours in a column of their own (the CSV's too).
      await go("#/overview?window=all&by=team");
      const dw = await page.$eval("[data-window]", (e) => e.dataset.window);
      const drep = await page.evaluate(async (w) =>
        (await fetch("api/v1/report?" + new URLSearchParams({ window: w, by: "team" }))).json(), dw);
      check(!drep.totals.prices_known && drep.totals.unpriced_gpu_hours > 0, "the DRA ledger has unpriced hours");
      equal(await text("[data-kpi=cost_usd]"), money(drep.totals.cost_usd) + " + unknown", "the total cost's unknown part");
      equal(await text("[data-kpi=effective_usd]"), money(drep.totals.effective_usd) + " + unknown", "the effective cost's unknown part");
      equal(await text("[data-kpi=waste_usd]"), money(drep.totals.waste_usd) + " + unknown", "the waste's unknown part");
      equal(JSON.stringify(await texts("table[data-table=cost-by-team] tbody td[data-col=unpriced_gpu_hours]")),
        JSON.stringify(drep.rows.map((r) => hoursText(r.unpriced_gpu_hours))), "each team's unpriced hours");
      // An idle row held nothing: its allocated money is whole and its unpriced hours are in its
      // idle capacity, as the CLI's table prints it.
      const idleRow = (r) => r.idle === true || r.team === "__idle__";
      check(drep.rows.some((r) => idleRow(r) && r.unpriced_gpu_hours > 1e-9), "the DRA ledger has unpriced idle capacity");
      equal(JSON.stringify(await texts("table[data-table=cost-by-team] tbody td[data-col=allocated_usd]")),
        JSON.stringify(drep.rows.map((r) => money(r.allocated_usd) +
          (!idleRow(r) && r.allocated_usd !== null && r.unpriced_gpu_hours > 1e-9 ? " + unknown" : ""))), "each team's priced part + unknown");
      equal(JSON.stringify(await texts("table[data-table=cost-by-team] tbody td[data-col=idle_usd]")),
        JSON.stringify(drep.rows.map((r) => money(r.idle_usd) +
          (idleRow(r) && r.idle_usd !== null && r.unpriced_gpu_hours > 1e-9 ? " + unknown" : ""))), "the idle row's priced idle + unknown");
      // The chart's legend off the chart says the same "+ unknown" as the table and the tile.
      const dlegend = await legendValues();
      equal(dlegend.idle, await text("[data-kpi=idle_usd]"), "the chart legend's idle capacity, unpriced");
      for (const r of drep.rows.filter((r) => !idleRow(r) && r.team in dlegend)) {
        equal(dlegend[r.team], money(r.allocated_usd) +
          (r.allocated_usd !== null && r.unpriced_gpu_hours > 1e-9 ? " + unknown" : ""), `the chart legend's ${r.team}, unpriced`);
      }
      check(Object.values(dlegend).some((v) => v.endsWith(" + unknown")), "the legend has unknown money: " + JSON.stringify(dlegend));
      check((await text("[data-change]")).includes(`${hoursText(drep.totals.unpriced_gpu_hours)} GPU- and accelerator-hours had no known price`),
        "the overview says how many hours had no price: " + await text("[data-change]"));
      await shot("overview-unpriced");
      await go("#/drill?window=all");
      check((await text("[data-unpriced]")).includes("had no known price"), "the drill-down says its unpriced hours");
    } finally {
      dserve.kill("SIGTERM");
    }
  }

  const errors = consoleErrors.filter((t) => !expected401(t));
  check(errors.length === 0, "console errors: " + errors.join(" | "));
} catch (e) {
  failures.push(String(e.stack ?? e));
  console.error(e);
} finally {
  await browser?.close();
  serve.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
console.log(`ui test: ${failures.length} failures, ${((Date.now() - started) / 1000).toFixed(1)} s; screenshots in ${out}`);
process.exit(failures.length ? 1 : 0);
