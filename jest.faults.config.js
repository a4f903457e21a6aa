/**
 * The fault suite (`pnpm test:faults`, docs/reliability.md): real processes against private
 * servers it starts itself, one file at a time (it stops and starts those servers).
 */
const base = require('./jest.config.js');
module.exports = {
  ...base,
  roots: ['<rootDir>/tests/faults'],
  testMatch: ['**/*.fault.ts'],
  globalSetup: undefined,
  globalTeardown: undefined,
  testTimeout: 300_000,
  maxWorkers: 1,
};
