import { operationsOf, type OperationSource, type OperationSpec, type Route } from '@parley/shared';
import { operations as gatewayOperations } from '../openapi';

/**
 * Where each service's operation list comes from. Loaded lazily with `require` rather than
 * imported: the gateway must build and start without the other services' type
 * declarations (each engineer's service compiles on its own), and their code is only
 * loaded when someone asks for the document. A service declares its routes with the route
 * kit and exports the list from its package index as `routes` (or, until it is converted,
 * its operations as `operations`); until it does, it contributes none (the coverage test
 * names what is missing).
 */
const LOADERS: Array<{ service: string; proxied: boolean; load: () => unknown }> = [
  { service: 'gateway', proxied: false, load: () => ({ operations: gatewayOperations }) },
  { service: 'conversations', proxied: true, load: () => require('@parley/conversations') },
  { service: 'contacts', proxied: true, load: () => require('@parley/contacts') },
  { service: 'helpcenter', proxied: true, load: () => require('@parley/helpcenter') },
  { service: 'automation', proxied: true, load: () => require('@parley/automation') },
  { service: 'audit', proxied: true, load: () => require('@parley/audit') },
];

/** What a service behind the proxy can answer on top of its own errors: it may be down or slow. */
const PROXY_ERRORS = [503, 504];

/** Every service's operations, in a fixed service order. */
export function operationSources(): OperationSource[] {
  return LOADERS.map(({ service, proxied, load }) => {
    const mod = load() as { operations?: OperationSpec[]; routes?: Array<Route<unknown>> } | undefined;
    const operations = mod?.operations ?? (mod?.routes ? operationsOf(mod.routes) : []);
    if (!Array.isArray(operations)) throw new Error(`@parley/${service} exports "operations" that is not an array`);
    return { service, operations, ...(proxied ? { errors: PROXY_ERRORS } : {}) };
  });
}
