import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout, one line per record, tagged with the service name. */
export function createLogger(service: string, level = 'info'): Logger {
  return pino({
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.api_access_token', 'req.headers["api-access-token"]', 'token'], remove: true },
  });
}
