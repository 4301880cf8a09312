// Build the web app (web/src, TypeScript) into the API package's assets (api/web): one
// bundled, minified script, the stylesheet and the page, so the API serves every byte itself.
// `node web/build.mjs [OUT_DIR]` (default api/web); tests/web/test_assets.py rebuilds into a
// temporary folder and fails when the committed assets differ.
import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = resolve(process.argv[2] ?? join(here, "..", "api", "web"));
mkdirSync(out, { recursive: true });

await build({
  entryPoints: [join(here, "src", "main.ts")],
  outfile: join(out, "app.js"),
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2022",
  legalComments: "none",
  charset: "utf8",
  logLevel: "warning",
});
copyFileSync(join(here, "src", "app.css"), join(out, "app.css"));
copyFileSync(join(here, "index.html"), join(out, "index.html"));
