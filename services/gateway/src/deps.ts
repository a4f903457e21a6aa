import type { ServiceDeps } from '@parley/shared';
import type { GatewayConfig } from './config';
import type { PrincipalStore } from './auth/principals';

export interface GatewayDeps extends ServiceDeps<GatewayConfig> {
  principals: PrincipalStore;
}
