// Fleet: every node and its GPUs as a map of the newest step — MIG slices with who holds each,
// time-sliced and MPS replicas, HAMi fractions, the parts of GPUs that DRA claims hold, idle
// capacity — with each node's price per GPU-hour and where that price came from. AWS Neuron
// nodes show their devices and NeuronCores, priced per accelerator-hour (one device for one
// hour; docs/report.md, "Unit kinds").
import { fleet, FleetHolder, FleetNode, FleetUnit, LedgerInfo } from "../api";
import { colorsByName } from "../chart";
import { clusterControl, clusterParam } from "../common";
import { h, kpi, message, table } from "../dom";
import { hours, instant, money, percent } from "../format";

const SHARING: Record<string, string> = {
  none: "whole GPUs", mig: "MIG", "time-slicing": "time-sliced", mps: "MPS", hami: "HAMi fractions",
  dra: "DRA claims",
};

// The words for a node's devices: GPUs, or AWS Neuron devices.
interface DeviceWords {
  one: string;       // "GPU", "Device"
  many: string;      // "GPUs", "Neuron devices"
  hour: string;      // "GPU-hour", "accelerator-hour"
  whole: string;     // the sharing mode "none": "whole GPUs", "whole devices"
}
const GPU_WORDS: DeviceWords = { one: "GPU", many: "GPUs", hour: "GPU-hour", whole: "whole GPUs" };
const NEURON_WORDS: DeviceWords = { one: "Device", many: "Neuron devices", hour: "accelerator-hour", whole: "whole devices" };

// A node first scraped, or gone, in the middle of the newest step: its held and idle GPUs are
// over the part of the step it was seen, and the card says so.
function seenOnlyPart(n: FleetNode): boolean {
  return n.seen_fraction !== undefined && n.seen_fraction < 0.999;
}

function deviceWords(n: FleetNode): DeviceWords {
  return n.unit_kind === "neuron_device" ? NEURON_WORDS : GPU_WORDS;
}

// How a node's devices are handed out, in words. An AMD GPU in a compute-partition mode has its
// partitions as units, whatever the node's sharing mode says ("none", or "dra" where DRA's
// claims hand the partitions out, which is said too).
function sharingText(n: FleetNode, words: DeviceWords): string {
  const partitions = n.gpus.length > 0 ? n.gpus[0].units.filter((u) => u.kind === "xcp").length : 0;
  const how = n.sharing === "none" ? words.whole : SHARING[n.sharing] ?? n.sharing;
  if (partitions > 0) return `${partitions} compute partitions a GPU` + (n.sharing === "dra" ? ` · ${how}` : "");
  return how;
}

function teamColors(nodes: FleetNode[]): Map<string, string> {
  const teams = new Set<string>();
  for (const n of nodes) for (const g of n.gpus) for (const u of g.units) for (const x of u.holders) teams.add(x.team);
  return colorsByName(teams);
}

function who(x: FleetHolder): string {
  return `${x.namespace}/${x.pod}` + (x.container ? ` (${x.container})` : "");
}

function holderTitle(x: FleetHolder, u: FleetUnit, words: DeviceWords): string {
  return [`${who(x)}`, `team ${x.team}`, `workload ${x.workload}`, `${hours(x.gpus, 3)} ${words === GPU_WORDS ? "GPU" : "device"}`,
    `utilization ${percent(x.utilization)}${x.estimated ? " (estimated share)" : ""}`,
    `${money(x.usd_per_hour)}/h`, u.mig_profile ? `slice ${u.mig_profile}` : ""].filter(Boolean).join("\n");
}

// One unit (a whole GPU, a MIG slice, a replica or a NeuronCore): its holders' parts, then what
// is idle.
function unitBox(u: FleetUnit, colors: Map<string, string>, words: DeviceWords): HTMLElement {
  const label = u.kind === "mig" ? u.mig_profile || "slice" : u.kind === "replica" ? `r${u.index}`
    : u.kind === "core" ? `core ${u.index}` : u.kind === "xcp" ? `p${u.index}` : "";
  // Parts grow in proportion to the unit (flex-grow under 1 in all would leave space unfilled).
  const f = u.fraction > 0 ? u.fraction : 1;
  const parts = u.holders.map((x) => h("div", {
    class: "part", style: `flex-grow:${x.gpus / f};background:${colors.get(x.team)}`,
    title: holderTitle(x, u, words), "data-holder": who(x),
  }, h("span", {}, x.pod)));
  if (u.idle_gpus > 1e-9 || u.holders.length === 0) {
    parts.push(h("div", { class: "part idle", style: `flex-grow:${Math.max(u.idle_gpus / f, 1e-6)}`, title: `idle: ${hours(u.idle_gpus, 3)} ${words === GPU_WORDS ? "GPU" : "device"}${u.holdable ? "" : " (not partitioned: nobody can request it)"}` },
      h("span", {}, u.holdable ? "idle" : "unpartitioned")));
  }
  return h("div", { class: `unit ${u.kind}`, style: `flex-grow:${u.fraction}`, "data-unit": u.kind },
    label ? h("div", { class: "unit-label" }, label) : null,
    h("div", { class: "parts" }, parts));
}

function nodeCard(n: FleetNode, colors: Map<string, string>): HTMLElement {
  const words = deviceWords(n);
  const price = n.usd_per_gpu_hour === null ? "price unknown" : `${money(n.usd_per_gpu_hour)} per ${words.hour}`;
  const sharing = sharingText(n, words);
  return h("article", { class: "node card", "data-node": n.name, "data-unit-kind": n.unit_kind ?? "gpu" },
    h("header", {},
      h("h3", {}, n.name),
      h("p", { class: "meta" },
        [n.gpu_model, n.instance_type, n.capacity_type.replace("_", "-"), sharing,
          n.replicas > 1 ? `${n.replicas} replicas a GPU` : ""].filter(Boolean).join(" · ")),
      h("p", { class: "price", "data-price": String(n.usd_per_gpu_hour) }, price,
        n.usd_per_gpu_hour === null ? null : h("span", { class: "source" }, ` (${n.price_source})`)),
      h("p", { class: "meta" }, `${hours(n.allocated_gpus)} of ${n.physical_gpus} ${words.many} held · ${hours(n.idle_gpus)} idle`,
        seenOnlyPart(n) ? h("span", { class: "seen", "data-seen": String(n.seen_fraction) },
          ` · seen for ${percent(n.seen_fraction)} of the step; held and idle are over that part`) : null)),
    h("div", { class: "gpus" }, n.gpus.map((g, i) => h("div", { class: "gpu", title: g.uuid },
      h("div", { class: "gpu-label" }, `${words.one} ${i}`),
      h("div", { class: "units" }, g.units.map((u) => unitBox(u, colors, words)))))));
}

export async function fleetPage(main: HTMLElement, info: LedgerInfo, params: URLSearchParams): Promise<void> {
  const f = await fleet(clusterParam(params));
  if (!f.window || f.nodes.length === 0) {
    main.replaceChildren(h("h1", {}, "Fleet"), message("The ledger holds no nodes yet."));
    return;
  }
  const colors = teamColors(f.nodes);
  const gpus = f.nodes.reduce((a, n) => a + n.physical_gpus, 0);
  const held = f.nodes.reduce((a, n) => a + n.allocated_gpus, 0);
  const idle = f.nodes.reduce((a, n) => a + n.idle_gpus, 0);
  // Nodes without a known price are in no dollar figure, and the headline says how many are.
  const priced = f.nodes.filter((n) => n.usd_per_gpu_hour !== null && n.usd_per_gpu_hour !== undefined);
  const rate = priced.length === 0 ? null : priced.reduce((a, n) => a + (n.usd_per_gpu_hour ?? 0) * n.physical_gpus, 0);
  const rateLabel = priced.length === f.nodes.length ? "Fleet cost per hour"
    : `Fleet cost per hour, ${priced.length} of ${f.nodes.length} nodes priced`;
  // A fleet with AWS Neuron nodes counts GPUs and Neuron devices together, and says so.
  const neuron = f.nodes.some((n) => n.unit_kind === "neuron_device");
  const neuronOnly = f.nodes.every((n) => n.unit_kind === "neuron_device");
  const devices = !neuron ? "GPUs" : neuronOnly ? "Neuron devices" : "GPUs and Neuron devices";
  const perHour = !neuron ? "Per GPU-hour" : neuronOnly ? "Per accelerator-hour" : "Per GPU- or accelerator-hour";
  main.replaceChildren(
    h("div", { class: "page-head" }, h("h1", {}, "Fleet"),
      h("p", { class: "window", "data-window": f.window.start + "," + f.window.end }, "The newest step: ", instant(f.window.start), " – ", instant(f.window.end), " UTC")),
    h("div", { class: "controls" }, clusterControl(info, params)),
    h("section", { class: "kpis", "aria-label": "The fleet now" },
      kpi("Nodes", String(f.nodes.length), "nodes"),
      kpi(devices, String(gpus), "gpus"),
      kpi(`${devices} held`, hours(held), "held"),
      kpi(`Idle ${devices}`, hours(idle), "idle"),
      kpi(rateLabel, money(rate), "usd_per_hour",
        priced.length === f.nodes.length ? "" : "Nodes whose price is unknown are in no dollar figure (docs/pricing.md)")),
    h("div", { class: "legend", "aria-label": "Teams" }, [...colors].map(([t, c]) =>
      h("span", { class: "swatch" }, h("i", { style: `background:${c}` }), t)),
    h("span", { class: "swatch" }, h("i", { class: "idle" }), "idle")),
    h("section", { class: "fleet", "aria-label": "Nodes" }, f.nodes.map((n) => nodeCard(n, colors))),
    table("Nodes", "fleet-nodes", [
      { label: "Node", key: "node", text: (n: FleetNode) => n.name },
      { label: "Cluster", key: "cluster", text: (n: FleetNode) => n.cluster },
      { label: "GPU model", key: "gpu_model", text: (n: FleetNode) => n.gpu_model },
      { label: "Sharing", key: "sharing", text: (n: FleetNode) => n.sharing === "none" && n.gpus.some((g) => g.units.some((u) => u.kind === "xcp")) ? "partitions" : n.sharing },
      { label: devices, key: "physical_gpus", num: true, text: (n: FleetNode) => String(n.physical_gpus) },
      { label: "Held", key: "allocated_gpus", num: true, text: (n: FleetNode) => hours(n.allocated_gpus), raw: (n: FleetNode) => n.allocated_gpus },
      { label: "Idle", key: "idle_gpus", num: true, text: (n: FleetNode) => hours(n.idle_gpus), raw: (n: FleetNode) => n.idle_gpus },
      { label: perHour, key: "usd_per_gpu_hour", num: true, text: (n: FleetNode) => money(n.usd_per_gpu_hour), raw: (n: FleetNode) => n.usd_per_gpu_hour },
      { label: "Price source", key: "price_source", text: (n: FleetNode) => n.price_source },
    ], f.nodes),
  );
}
