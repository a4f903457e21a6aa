export { auditService } from './service';
export { auditConfigSchema, readConfig, type AuditConfig } from './config';
export { createApp } from './app';
export { routes } from './routes';
export { operations } from './openapi';
