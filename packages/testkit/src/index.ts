export * from './infra';
export * from './harness';
export * from './helpers';
export * from './events';
export * from './fixtures';
export * from './peer-stub';
export * from './tcp-gate';
export * from './private-servers';
