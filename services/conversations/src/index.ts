export { conversationsService } from './service';
export { conversationsConfigSchema, readConfig, type ConversationsConfig } from './config';
export { createApp } from './app';
export * from './openapi';
export { foldCountDeltas, vacuumCounts } from './conversations/counts';
