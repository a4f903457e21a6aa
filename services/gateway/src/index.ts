export { gatewayService } from './service';
export { gatewayConfigSchema, readConfig, type GatewayConfig } from './config';
export { createApp } from './app';
export { operations } from './openapi';
export { routes } from './routes';
