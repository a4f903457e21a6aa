import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { createProxyMiddleware } from 'http-proxy-middleware';
import type { Logger, ServerAttachment, ServiceMetrics } from '@parley/shared';
import type { GatewayConfig } from './config';

const CABLE_PATH = /^\/cable\/?(\?.*)?$/;

/**
 * The WebSocket upgrade at `/cable`, proxied to the realtime service so integrators keep one
 * URL. ActionCable authenticates per subscription (`pubsub_token`), so the gateway adds no
 * identity; any other upgrade is refused. Sockets the gateway carries are closed on shutdown
 * (the client reconnects, to another replica).
 */
export function cableProxy(server: Server, config: GatewayConfig, log: Logger, metrics?: ServiceMetrics): ServerAttachment {
  const sockets = new Set<Duplex>();
  const proxy = createProxyMiddleware({
    target: config.REALTIME_URL,
    ws: true,
    xfwd: true,
    changeOrigin: false,
    on: {
      error: (err, _req, res) => {
        log.warn({ err: err.message, upstream: config.REALTIME_URL }, 'cable upstream error');
        metrics?.upstreamErrors.inc({ upstream: config.REALTIME_URL, code: 'unavailable' });
        if ('destroy' in res && typeof res.destroy === 'function' && !('setHeader' in res)) res.destroy();
      },
    },
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    if (!CABLE_PATH.test(req.url ?? '')) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    proxy.upgrade(req, socket as never, head);
  });
  return {
    close: async () => {
      for (const s of sockets) s.destroy();
      sockets.clear();
    },
  };
}
