import pino, { type Logger } from 'pino';

export type { Logger };

/** JSON logs on stdout (or `destination`: tests read what a service logged), one line per record, tagged with the service name. */
export function createLogger(service: string, level = 'info', destination?: { write(line: string): void }): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['req.headers.api_access_token', 'req.headers["api-access-token"]', 'token'], remove: true },
  };
  return destination ? pino(options, destination) : pino(options);
}
