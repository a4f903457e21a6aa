export { automationService } from './service';
export { automationConfigSchema, readConfig, type AutomationConfig } from './config';
export { createApp } from './app';
export * from './openapi';
