// The UI's state lives in the URL's fragment, `#/PAGE?key=value&...`, so that a link shows the
// same page with the same window and filters to whoever opens it; the fragment never reaches the
// server, which makes the links work under any path prefix.

export interface Route {
  page: string;
  params: URLSearchParams;
}

export function current(): Route {
  const hash = location.hash.replace(/^#\/?/, "");
  const q = hash.indexOf("?");
  const page = (q < 0 ? hash : hash.slice(0, q)) || "overview";
  return { page, params: new URLSearchParams(q < 0 ? "" : hash.slice(q + 1)) };
}

export function href(page: string, params: URLSearchParams | Record<string, string>): string {
  const p = params instanceof URLSearchParams ? params : new URLSearchParams(params);
  for (const [k, v] of [...p.entries()]) if (v === "") p.delete(k);
  const q = p.toString();
  return "#/" + page + (q ? "?" + q : "");
}

// Sets some parameters of the current page (empty: removed); a new history entry.
export function update(changes: Record<string, string>, page?: string): void {
  const r = current();
  for (const [k, v] of Object.entries(changes)) r.params.set(k, v);
  location.hash = href(page ?? r.page, r.params);
}
