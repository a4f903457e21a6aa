/**
 * The services, their default ports and entry points (built by `pnpm build`), and how each
 * scales beyond one machine: `cpu` (HTTP-bound: an HPA on CPU) or `queue` (a consumer: KEDA on
 * the depth of each of its `queues`). `queues` are the durable queues it consumes.
 */
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const services = [
  { name: 'conversations', port: 3001, scale: 'cpu', queues: ['conversations.projections'] },
  { name: 'contacts', port: 3002, scale: 'cpu', queues: ['contacts.events'] },
  { name: 'helpcenter', port: 3003, scale: 'cpu', queues: ['helpcenter.identity'] },
  { name: 'automation', port: 3004, scale: 'queue', queues: ['automation.rules', 'automation.webhooks', 'automation.projections'] },
  { name: 'audit', port: 3005, scale: 'queue', queues: ['audit.events'] },
  { name: 'gateway', port: 3000, scale: 'cpu', queues: [] },
].map((s) => ({ ...s, main: path.join(root, 'services', s.name, 'dist', 'main.js'), migrations: path.join(root, 'services', s.name, 'migrations') }));

module.exports = { services, root };
