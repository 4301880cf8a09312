#!/usr/bin/env node
// A `solc` executable for forge and crytic-compile, backed by solcjs (no native solc on this machine).
// Answers `--version` and `--standard-json` (stdin -> stdout); sources missing from the input are
// read from disk relative to the working directory, the repository root or node_modules.
"use strict";
const fs = require("fs");
const path = require("path");
const solc = require(path.join(__dirname, "..", "node_modules", "solc"));

function findImports(p) {
  const roots = [process.cwd(), path.join(__dirname, ".."), path.join(__dirname, "..", "node_modules")];
  for (const root of roots) {
    const full = path.resolve(root, p);
    if (fs.existsSync(full)) return { contents: fs.readFileSync(full, "utf8") };
  }
  return { error: "File not found: " + p };
}

function main() {
  const args = process.argv.slice(2);
  if (args.includes("--version")) {
    process.stdout.write("solc, the solidity compiler commandline interface\nVersion: " + solc.version() + "\n");
    return;
  }
  if (args.includes("--standard-json")) {
    const input = fs.readFileSync(0, "utf8");
    // no process.exit() after this: it would cut off a large output still being flushed to the pipe
    process.stdout.write(solc.compile(input, { import: findImports }));
    return;
  }
  process.stderr.write("solc-wrapper: only --version and --standard-json are supported\n");
  process.exitCode = 1;
}

main();
