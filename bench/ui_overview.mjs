// Times the web UI's overview in Chromium: from the page's request to its figures and its chart
// drawn (the page sets body[data-ready] when its APIs have answered and it has drawn). The first
// run is serve's first read of the window (its roll-up cache empty); the others are warm.
//
//   node bench/ui_overview.mjs --url URL --modules NODE_MODULES [--runs 10] [--chromium PATH]
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) =>
  (a.startsWith("--") ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const require = createRequire(join(resolve(args.modules), "noop.js"));
const puppeteer = require("puppeteer-core");
const runs = Number(args.runs ?? 10);

const browser = await puppeteer.launch({
  executablePath: args.chromium ?? "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const times = [];
let figures = "";
try {
  for (let i = 0; i < runs; ++i) {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 800 });
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    const start = performance.now();
    await page.goto(args.url, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => Number(document.body.dataset.ready ?? 0) > 0 &&
      !document.querySelector("main[aria-busy]") && document.querySelector(".uplot"), { timeout: 120000 });
    times.push(performance.now() - start);
    figures = await page.$eval("[data-kpi=cost_usd]", (e) => e.textContent.trim());
    if (errors.length) throw new Error("page errors: " + errors.join(" | "));
    await page.close();
  }
} finally {
  await browser.close();
}
const warm = times.slice(1).sort((a, b) => a - b);
const pct = (q) => warm[Math.min(warm.length - 1, Math.floor((warm.length - 1) * q))];
console.log(`overview (total ${figures}): cold ${times[0].toFixed(0)} ms; warm p50 ${pct(0.5).toFixed(0)} ms, ` +
  `p99 ${pct(0.99).toFixed(0)} ms (${warm.length} runs)`);
