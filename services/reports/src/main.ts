import '@parley/shared/dist/tracing-register'; // first: tracing must patch modules before they load
import { bootService, exitOnSignals } from '@parley/shared';
import { readConfig } from './config';
import { reportsService } from './service';

async function main(): Promise<void> {
  const config = readConfig();
  const svc = await bootService(reportsService, config, { port: config.PORT });
  exitOnSignals(svc.stop, svc.deps.log);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
