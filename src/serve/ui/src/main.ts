// The gpucost web UI: one page at a time, chosen by the URL's fragment (state.ts), drawn from
// serve's JSON APIs. A 401 asks for the bearer token (serve --token-file) and retries.
import { ledgerInfo, NeedToken, setToken, token } from "./api";
import { setKnownNames } from "./chart";
import { h, message } from "./dom";
import { current, href } from "./state";
import { overview } from "./pages/overview";
import { drill } from "./pages/drill";
import { fleetPage } from "./pages/fleet";
import { chargeback } from "./pages/chargeback";
import { alertsPage } from "./pages/alerts";
import { savingsPage } from "./pages/savings";

const PAGES: Record<string, typeof overview> = {
  overview, drill, fleet: fleetPage, chargeback, savings: savingsPage, alerts: alertsPage,
};
let rendering = 0;

function tokenForm(main: HTMLElement, rejected: boolean): void {
  const input = h("input", { id: "token", type: "password", autocomplete: "off", required: true });
  const form = h("form", {
    class: "card token", onsubmit: (e: Event) => {
      e.preventDefault();
      setToken(input.value.trim());
      void render();
    },
  },
  h("h1", {}, "Sign in"),
  h("p", {}, rejected ? "The server refused that token. Enter the token of serve's --token-file."
    : "This server needs a token: the content of serve's --token-file."),
  h("label", { for: "token" }, "Token"), input,
  h("button", { type: "submit" }, "Open"));
  main.replaceChildren(form);
  input.focus();
}

async function render(): Promise<void> {
  const me = ++rendering;
  const main = document.getElementById("main")!;
  const route = current();
  // The pages keep the window and the clusters chosen on one page when another is opened.
  const kept: Record<string, string> = {};
  for (const k of ["window", "from", "to", "cluster"]) kept[k] = route.params.get(k) ?? "";
  for (const a of document.querySelectorAll<HTMLAnchorElement>("nav a[data-page]")) {
    a.href = href(a.dataset.page!, kept);
    if (a.dataset.page === route.page) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const page = PAGES[route.page] ?? overview;
  // Sign out: forget the tab's token (another user's turn at a shared screen, a rotated token).
  document.getElementById("signout")!.hidden = token() === "";
  main.setAttribute("aria-busy", "true");
  try {
    const info = await ledgerInfo();
    if (me !== rendering) return;
    setKnownNames(info.teams ?? []);
    // A cluster the ledger does not hold (a bookmark from another ledger, a typo) is said as
    // such, not as a page without costs.
    const unknown = (route.params.get("cluster") ?? "").split(",").filter((c) => c !== "" && !info.clusters.includes(c));
    if (unknown.length > 0 && info.clusters.length > 0) {
      throw new Error(`This ledger holds no cluster named ${unknown.join(", ")}; its clusters: ${info.clusters.join(", ")}.`);
    }
    await page(main, info, route.params);
  } catch (e) {
    if (me !== rendering) return;
    if (e instanceof NeedToken) tokenForm(main, e.rejected);
    else {
      // The page's own view is gone with the error: a way back to its default view, so that a
      // bad range or an unknown cluster in the URL is never a dead end.
      const reset = [...route.params.keys()].length > 0
        ? h("p", {}, h("a", { href: href(route.page, {}), "data-reset": "" }, "Show this page with its defaults"))
        : null;
      main.replaceChildren(message(e instanceof Error ? e.message : String(e), "error"), ...(reset ? [reset] : []));
    }
  } finally {
    if (me === rendering) {
      main.removeAttribute("aria-busy");
      document.body.dataset.page = route.page;
      document.body.dataset.ready = String(me);
    }
  }
}

window.addEventListener("hashchange", () => void render());
document.getElementById("signout")!.addEventListener("click", () => {
  setToken("");
  void render();
});
void render();
