import { operationsOf } from '@parley/shared';
import { routes } from './routes';

/** The help center's public operations, for the API document (`packages/openapi`). */
export const operations = operationsOf(routes);
