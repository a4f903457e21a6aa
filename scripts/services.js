/**
 * The services as the scripts need them: packages/shared/src/registry.ts (the one list: name,
 * port, URL key, how each scales and the queues it consumes) plus each one's built entry point and
 * migrations directory. Needs `pnpm build` (the scripts that use it build first).
 */
const path = require('node:path');
const { SERVICE_REGISTRY } = require('@parley/shared');

const root = path.resolve(__dirname, '..');
const services = SERVICE_REGISTRY.map((s) => ({
  ...s,
  main: path.join(root, 'services', s.name, 'dist', 'main.js'),
  migrations: path.join(root, 'services', s.name, 'migrations'),
}));

module.exports = { services, root };
