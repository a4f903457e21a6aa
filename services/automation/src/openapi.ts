import { operationsOf } from '@parley/shared';
import { routes } from './routes';

/** The automation service's public operations, for the API document (`packages/openapi`). */
export const operations = operationsOf(routes);
