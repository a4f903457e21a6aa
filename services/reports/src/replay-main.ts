import { createLogger, createPool, serviceDatabaseUrl } from '@parley/shared';
import { readConfig } from './config';
import { replayReports } from './replay';

/**
 * `pnpm --filter @parley/reports replay [--account <id>]` (after `pnpm build`): rebuilds the
 * reporting events from the recorded facts (docs/reports.md, "Rebuilding").
 */
async function main(): Promise<void> {
  const config = readConfig();
  const log = createLogger('reports-replay', config.LOG_LEVEL);
  const i = process.argv.indexOf('--account');
  const accountId = i >= 0 ? Number(process.argv[i + 1]) : undefined;
  if (accountId !== undefined && !(Number.isSafeInteger(accountId) && accountId > 0)) throw new Error('--account needs an account id');
  const pool = createPool(serviceDatabaseUrl(config.DATABASE_URL, 'reports', config.DB_ROLE_PASSWORD), 'reports', 2, {}, log);
  try {
    const result = await replayReports(pool, accountId !== undefined ? { accountId } : {});
    log.info(result, 'reporting events rebuilt');
  } finally {
    await pool.end();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
