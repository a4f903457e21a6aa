#!/usr/bin/env node
// Rewrites the generated part of docs/contracts.md from the zod contracts in packages/shared
// (run after a build: `pnpm docs:contracts`). packages/shared/test/contracts.test.ts fails when
// the committed doc is stale.
const fs = require('node:fs');
const path = require('node:path');
const { withGeneratedContracts } = require('../packages/shared/dist');

const file = path.resolve(__dirname, '..', 'docs', 'contracts.md');
const before = fs.readFileSync(file, 'utf8');
const after = withGeneratedContracts(before);
if (after !== before) fs.writeFileSync(file, after);
console.log(after === before ? 'docs/contracts.md is current' : 'docs/contracts.md rewritten');
