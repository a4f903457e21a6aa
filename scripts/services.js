/** The six services, their default ports and entry points (built by `pnpm build`). */
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const services = [
  { name: 'conversations', port: 3001 },
  { name: 'contacts', port: 3002 },
  { name: 'helpcenter', port: 3003 },
  { name: 'automation', port: 3004 },
  { name: 'audit', port: 3005 },
  { name: 'gateway', port: 3000 },
].map((s) => ({ ...s, main: path.join(root, 'services', s.name, 'dist', 'main.js'), migrations: path.join(root, 'services', s.name, 'migrations') }));

module.exports = { services, root };
