import { z } from 'zod';
import { pathParam, routeKit, type SecurityScheme, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from './config';

/** The help center's `route({...})` (route kit, packages/shared/src/routes.ts). */
export const route = routeKit<ServiceDeps<HelpcenterConfig>>();

export const PORTALS = '/api/v1/accounts/{account_id}/portals';
export const PORTAL = `${PORTALS}/{portal_slug}`;
export const PUBLIC_PORTALS = '/public/api/v1/portals';
export const PUBLIC = `${PUBLIC_PORTALS}/{portal_slug}`;

export const READ_ERRORS = [401, 403, 404];
export const WRITE_ERRORS = [400, 401, 403, 404, 409, 422];
export const ADMIN = 'Administrators only (agents get 403).';
export const user: { security: SecurityScheme[]; tags: string[] } = { security: ['userApiKey'], tags: ['Help Center'] };
export const anonymous: { security: SecurityScheme[]; tags: string[] } = { security: [], tags: ['Help Center (public)'] };

/** The portal a path names by slug (checked and loaded by the `use` middleware, so a 404 comes before a 403). */
export const portalSlug = { portal_slug: pathParam('Portal', z.string().describe('The portal slug')) };
