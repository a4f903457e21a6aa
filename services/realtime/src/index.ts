export { realtimeService } from './service';
export { realtimeConfigSchema, readConfig, type RealtimeConfig } from './config';
export { createApp } from './app';
