/** One jest run over every package; each test file gets its own database and bus namespace. */
const fs = require('node:fs');
const path = require('node:path');

// Every workspace package under services/ (the registry, packages/shared/src/registry.ts, lists the
// same; packages/shared/test/registry.test.ts keeps the two equal). Read from the tree, not the
// built registry: jest may run before the first build.
const services = fs.readdirSync(path.join(__dirname, 'services')).filter((n) => fs.existsSync(path.join(__dirname, 'services', n, 'package.json')));
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/tests'],
  testMatch: ['**/test/**/*.test.ts', '**/tests/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  moduleNameMapper: {
    '^@parley/(shared|testkit|openapi)$': '<rootDir>/packages/$1/src',
    [`^@parley/(${services.join('|')})$`]: '<rootDir>/services/$1/src',
  },
  globalSetup: '<rootDir>/jest.global-setup.js',
  globalTeardown: '<rootDir>/jest.global-teardown.js',
  testTimeout: 60_000,
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 2,
  forceExit: true,
};
