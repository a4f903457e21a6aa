export * from './infra';
export * from './harness';
export * from './helpers';
export * from './events';
