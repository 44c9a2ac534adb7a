// Bundles the web UI with esbuild: `node build.mjs [UI_DIR [OUTDIR]]` writes OUTDIR/index.html,
// app.js and app.css from UI_DIR/src. The build (src/serve/CMakeLists.txt) copies this file and
// the lockfile into the build folder, runs `npm ci` there and then this script, and embeds the
// three files in the binary. Same sources and lockfile, same bytes.
import { build } from "esbuild";
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const ui = process.argv[2] ?? here;
const outdir = process.argv[3] ?? join(here, "dist");
mkdirSync(outdir, { recursive: true });

const common = {
  bundle: true,
  minify: true,
  legalComments: "none",
  target: ["es2020", "chrome90", "firefox90", "safari14"],
  nodePaths: [join(here, "node_modules")],  // the packages `npm ci` put beside this script
  logLevel: "warning",
};
await build({
  ...common,
  entryPoints: [join(ui, "src", "main.ts")],
  outfile: join(outdir, "app.js"),
  format: "iife",
});
await build({
  ...common,
  entryPoints: [join(ui, "src", "app.css")],
  outfile: join(outdir, "app.css"),
});
copyFileSync(join(ui, "src", "index.html"), join(outdir, "index.html"));
