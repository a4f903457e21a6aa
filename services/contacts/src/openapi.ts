import { operationsOf } from '@parley/shared';
import { routes } from './routes';

/** The contacts service's public operations, for the API document (`packages/openapi`). */
export const operations = operationsOf(routes);
