import { defineOperations, operationsOf } from '@parley/shared';
import { routes } from './routes';

/** Every public route of the conversations service, as integrators see it through the gateway (the route kit's declarations). */
export const operations = defineOperations(operationsOf(routes));
