export { helpcenterService } from './service';
export { helpcenterConfigSchema, readConfig, type HelpcenterConfig } from './config';
export { createApp } from './app';
export { operations } from './openapi';
