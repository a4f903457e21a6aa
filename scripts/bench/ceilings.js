/* Ceilings measured in the same run as the scenarios, on the same machine, to judge them by
 * (issue 12): what a bare Node HTTP server costs per request, what the list page's SQL costs
 * straight on Postgres (node pg, as many connections as the load has), and what a RabbitMQ
 * publish-and-consume with publisher confirms costs per message. */
const { spawn } = require('node:child_process');
const path = require('node:path');
const net = require('node:net');
const cpu = require('./proc-cpu');
const { runLoad, summarize, used } = require('./load');

/** A ceiling's CPU is that of what it exercises and its client: `groups`, summed as `total`. */
function only(perRequest, groups) {
  const out = {};
  let total = 0;
  for (const g of groups) {
    out[g] = perRequest[g] ?? 0;
    total += out[g];
  }
  out.total = Math.round(total * 1000) / 1000;
  return out;
}

const root = path.resolve(__dirname, '..', '..');
const fromShared = (m) => require(require.resolve(m, { paths: [path.join(root, 'packages', 'shared')] }));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A bare node:http server answering a small JSON body, in its own process (so its CPU is its own group). */
async function bareHttp({ seconds, connections, rate }) {
  const port = await freePort();
  const src = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{"status":"ok"}'); }).listen(${port}, '127.0.0.1');`;
  const child = spawn(process.execPath, ['-e', src, 'parley-bench-ceiling'], { stdio: 'ignore' });
  try {
    for (let i = 0; i < 100; i++) {
      const up = await fetch(`http://127.0.0.1:${port}/`).then((r) => r.ok).catch(() => false);
      if (up) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = await runLoad(`http://127.0.0.1:${port}`, { seconds, connections, rate, requests: [{ method: 'GET', path: '/' }] });
    if (r.error) return r;
    const { cpuMsNet, ...rest } = r;
    // In microseconds too: on a fast host the server costs about 0.01 ms a request, where rounding to 0.01 hides a factor of two.
    const cpuUsPerRequest = rest.requests > 0 && typeof cpuMsNet?.ceiling === 'number' ? Math.round((cpuMsNet.ceiling / rest.requests) * 10_000) / 10 : null;
    return { ...rest, cpuMsPerRequest: only(rest.cpuMsPerRequest, ['ceiling']), cpuUsPerRequest, cpuMsPerRequestClient: rest.cpuMsPerRequest.bench };
  } finally {
    child.kill('SIGTERM');
  }
}

/** Runs `op` on `connections` concurrent clients for `seconds`; counts operations, their latency and the CPU. */
async function closedLoop({ seconds, connections }, op) {
  const before = cpu.snapshot();
  const deadline = Date.now() + seconds * 1000;
  const times = [];
  let errors = 0;
  let lastError = null;
  await Promise.all(
    Array.from({ length: connections }, async (_, k) => {
      while (Date.now() < deadline) {
        const t = process.hrtime.bigint();
        try {
          await op(k);
          times.push(Number(process.hrtime.bigint() - t) / 1e6);
        } catch (err) {
          errors++;
          lastError = err.message;
          if (errors > 50) throw err;
        }
      }
    }),
  );
  const u = used(before, cpu.snapshot());
  return { requests: times.length, errors, lastError, rps: Math.round((times.length / seconds) * 10) / 10, latency: summarize(times), cpuMsPerRequest: only(cpu.perRequest(u.net, times.length), ['postgres']), cpuMsPerRequestClient: cpu.perRequest(u.net, times.length).bench };
}

/**
 * The list request's SQL straight on Postgres: page 1 (the service's own listQuery), the meta
 * counts as the service runs them (metaQuery) and the page's last message / unread count (conversationExtras' SQL);
 * with `q`, the same with the search term (from its search hits once the service registered the
 * pattern). Superuser connection, search_path set to the schema.
 */
async function listSql({ seconds, connections, databaseUrl, accountId, userId, q }) {
  const { Pool } = require('pg');
  const { listQuery, metaQuery } = require(path.join(root, 'services', 'conversations', 'dist', 'conversations', 'list'));
  const { UNREAD_COUNT } = require(path.join(root, 'services', 'conversations', 'dist', 'messages', 'repository'));
  const pool = new Pool({ connectionString: databaseUrl, max: connections, options: '-c search_path=conversations,public' });
  const filter = { accountId, visibleInboxIds: null, userId, ...(q ? { q } : {}) };
  // As the service: a q whose pattern has search hits reads them, not the messages.
  if (q) {
    const { qPattern } = require(path.join(root, 'services', 'conversations', 'dist', 'conversations', 'search-hits'));
    const { rows } = await pool.query('SELECT 1 FROM search_patterns WHERE account_id = $1 AND pattern = $2', [accountId, qPattern(q)]).catch(() => ({ rows: [] }));
    filter.qHits = rows.length > 0;
  }
  const page = listQuery(filter, 'last_activity_at_desc', 1);
  const count = metaQuery(filter);
  const extras = `SELECT c.id::text AS id,
       (SELECT row_to_json(m) FROM (SELECT * FROM messages WHERE conversation_id = c.id ORDER BY id DESC LIMIT 1) m) AS last_message,
       (SELECT row_to_json(m) FROM (SELECT * FROM messages WHERE conversation_id = c.id AND message_type <> 2 ORDER BY id DESC LIMIT 1) m) AS last_non_activity,
       ${UNREAD_COUNT} AS unread
     FROM conversations c WHERE c.id = ANY($1::bigint[])`;
  try {
    await pool.query('SELECT 1');
    return await closedLoop({ seconds, connections }, async () => {
      const [rows] = await Promise.all([pool.query(page.text, page.values), pool.query(count.text, count.values)]);
      await pool.query(extras, [rows.rows.map((r) => r.id)]);
    });
  } finally {
    await pool.end();
  }
}

/**
 * RabbitMQ publish and consume with publisher confirms, as the outbox relay publishes (persistent
 * messages of an envelope's size, confirms awaited per batch of 200) and a consumer acks them
 * (prefetch 100), on a queue of its own. Answers messages/s and CPU ms per message.
 */
async function rabbit({ seconds, amqpUrl }) {
  const amqp = fromShared('amqplib');
  const conn = await amqp.connect(amqpUrl);
  conn.on('error', () => undefined);
  const queue = `parley-bench-ceiling-${process.pid}`;
  try {
    const pub = await conn.createConfirmChannel();
    const sub = await conn.createChannel();
    await pub.assertQueue(queue, { durable: true, autoDelete: false });
    await sub.prefetch(100);
    let consumed = 0;
    const { consumerTag } = await sub.consume(queue, (m) => {
      if (!m) return; // cancelled
      consumed++;
      sub.ack(m);
    });
    const body = Buffer.from(JSON.stringify({ id: '00000000-0000-4000-8000-000000000000', type: 'message.created', data: { content: 'x'.repeat(700) } }));
    const before = cpu.snapshot();
    const t0 = Date.now();
    let published = 0;
    while (Date.now() - t0 < seconds * 1000) {
      for (let i = 0; i < 200; i++) pub.publish('', queue, body, { persistent: true, contentType: 'application/json' });
      await pub.waitForConfirms();
      published += 200;
    }
    while (consumed < published && Date.now() - t0 < seconds * 1000 + 30_000) await new Promise((r) => setTimeout(r, 20));
    const elapsed = (Date.now() - t0) / 1000;
    const u = used(before, cpu.snapshot());
    await sub.cancel(consumerTag);
    await pub.deleteQueue(queue);
    return { requests: consumed, rps: Math.round(consumed / elapsed), cpuMsPerRequest: only(cpu.perRequest(u.net, consumed), ['rabbitmq']), cpuMsPerRequestClient: cpu.perRequest(u.net, consumed).bench };
  } finally {
    await conn.close().catch(() => undefined);
  }
}

module.exports = { bareHttp, listSql, rabbit, fromShared };
