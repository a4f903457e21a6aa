import type { Request } from 'express';
import { imageFromRequest, multipartImage, routeKit, type SecurityScheme } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import * as s from './schemas';
import { readToken } from '../auth/middleware';
import { loadUser, removeProfileAvatar, resetUserToken, setAvailability, updateProfile, userRecordOf } from './users-service';

const route = routeKit<GatewayDeps>();
export const PROFILE = '/api/v1/profile';
const user: SecurityScheme[] = ['userApiKey'];
const tags = ['Profile'];

function userIdOf(req: Request): number {
  return req.ctx.actor.id as number;
}

const answer = async (deps: GatewayDeps, req: Request) => userRecordOf(deps, deps.pool, await loadUser(deps.pool, userIdOf(req)));

/** `/api/v1/profile` (SPEC operation 8): the caller's own User record. Users only, never bots (checked where mounted). */
export const profileRoutes = [
  route({
    method: 'get', path: PROFILE, operationId: 'getProfile', summary: 'Fetch user profile', tags, security: user,
    response: s.userRecordSchema, errors: [401, 403],
    // Kept with the token's cached principal: every change the record shows invalidates its owner.
    handler: ({ req }, deps) => deps.principals.profile(readToken(req) as string, () => answer(deps, req)),
  }),
  route({
    method: ['patch', 'put'], path: PROFILE, operationId: 'updateProfile', summary: 'Update the profile (flat or under `profile`)', tags, security: user,
    description: 'As multipart/form-data (`profile[name]`, ...), the picture may be uploaded as `avatar` or `profile[avatar]` (PNG, JPEG, GIF or WebP); its URL becomes `avatar_url`.',
    // Chatwoot's profile form is multipart: `profile[name]`... and the picture as `profile[avatar]` (or `avatar`).
    multipart: (deps) => multipartImage({ maxBytes: deps.config.AVATAR_MAX_BYTES, fileFields: ['avatar', 'profile[avatar]'] }),
    body: s.profileUpdate, wrap: 'profile', response: s.userRecordSchema, errors: [400, 401, 403, 409, 422],
    handler: async ({ req, body, ctx }, deps) => {
      await updateProfile(deps, ctx, userIdOf(req), body, imageFromRequest(req, 'avatar'));
      return answer(deps, req);
    },
  }),
  route({
    method: 'delete', path: `${PROFILE}/avatar`, operationId: 'deleteProfileAvatar', summary: 'Remove the profile picture (uploaded or by URL)', tags, security: user,
    response: s.userRecordSchema, errors: [401, 403],
    handler: async ({ req, ctx }, deps) => {
      await removeProfileAvatar(deps, ctx, userIdOf(req));
      return answer(deps, req);
    },
  }),
  route({
    method: 'post', path: `${PROFILE}/reset_access_token`, operationId: 'resetProfileAccessToken', summary: 'Replace the access token (the old one stops working at once)', tags, security: user,
    response: s.userRecordSchema, errors: [401, 403],
    handler: async ({ req }, deps) => {
      await resetUserToken(deps, userIdOf(req));
      return answer(deps, req);
    },
  }),
  route({
    method: 'post', path: `${PROFILE}/availability`, operationId: 'setProfileAvailability', summary: 'Set availability in an account (default: the active one)', tags, security: user,
    body: s.availabilityUpdate, wrap: 'profile', response: s.userRecordSchema, errors: [400, 401, 403, 422],
    handler: async ({ req, body, ctx }, deps) => {
      await setAvailability(deps, ctx, userIdOf(req), body.availability, body.account_id);
      return answer(deps, req);
    },
  }),
];
