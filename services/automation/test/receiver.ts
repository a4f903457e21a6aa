import type { AddressInfo } from 'node:net';
import http from 'node:http';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

/**
 * A real local HTTP server standing in for a webhook receiver. `respond` decides each answer
 * (status, and optionally a delay before answering); it records every request it got.
 */
export interface Receiver {
  url: string;
  received: Received[];
  /** Requests being answered right now, and the most there ever were at once. */
  active: number;
  maxActive: number;
  respond: (req: Received, index: number) => { status: number; delayMs?: number; headers?: Record<string, string> } | Promise<{ status: number; delayMs?: number; headers?: Record<string, string> }>;
  close(): Promise<void>;
}

export async function startReceiver(path = '/hook'): Promise<Receiver> {
  const r: Receiver = { url: '', received: [], active: 0, maxActive: 0, respond: () => ({ status: 200 }), close: async () => undefined };
  const server = http.createServer((req, res) => {
    r.active += 1;
    r.maxActive = Math.max(r.maxActive, r.active);
    let open = true;
    const done = () => {
      if (open) r.active -= 1;
      open = false;
    };
    res.on('finish', done);
    res.on('close', done);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try {
        json = JSON.parse(body);
      } catch {
        json = null;
      }
      const rec: Received = { headers: req.headers, body, json, at: Date.now() };
      const index = r.received.length;
      r.received.push(rec);
      const answer = await r.respond(rec, index);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) });
        res.end('{}');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  r.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  r.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return r;
}
