export { reportsService } from './service';
export { reportsConfigSchema, readConfig, type ReportsConfig } from './config';
export { createApp } from './app';
export { routes } from './routes';
export { operations } from './openapi';
export { replayReports } from './replay';
export { RETIRED_BINDINGS } from './events/consumer';
