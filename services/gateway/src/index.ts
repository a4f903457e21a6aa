export { gatewayService } from './service';
export { gatewayConfigSchema, readConfig, type GatewayConfig } from './config';
export { createApp } from './app';
export * from './openapi';
