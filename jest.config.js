/** One jest run over every package; each test file gets its own database and bus namespace. */
const services = ['gateway', 'conversations', 'contacts', 'helpcenter', 'automation', 'audit'];
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/packages', '<rootDir>/services', '<rootDir>/tests'],
  testMatch: ['**/test/**/*.test.ts', '**/tests/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { diagnostics: false, tsconfig: '<rootDir>/tsconfig.jest.json' }],
  },
  moduleNameMapper: {
    '^@parley/(shared|testkit)$': '<rootDir>/packages/$1/src',
    [`^@parley/(${services.join('|')})$`]: '<rootDir>/services/$1/src',
  },
  globalSetup: '<rootDir>/jest.global-setup.js',
  globalTeardown: '<rootDir>/jest.global-teardown.js',
  testTimeout: 60_000,
  maxWorkers: process.env.JEST_MAX_WORKERS ?? 2,
  forceExit: true,
};
