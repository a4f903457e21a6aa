import { Router, type Request, type RequestHandler } from 'express';
import { imageFromRequest, multipartImage, parseBody, unwrap } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { availabilityUpdate, profileUpdate } from './schemas';
import { loadUser, removeProfileAvatar, resetUserToken, setAvailability, updateProfile, userRecordOf } from './users-service';

function userIdOf(req: Request): number {
  return req.ctx.actor.id as number;
}

/** `/api/v1/profile` (SPEC operation 8): the caller's own User record. Users only, never bots. */
export function profileRouter(deps: GatewayDeps): Router {
  const router = Router();
  const answer = async (req: Request) => userRecordOf(deps, deps.pool, await loadUser(deps.pool, userIdOf(req)));

  router.get('/', async (req, res) => {
    res.json(await answer(req));
  });
  // Chatwoot's profile form is multipart: `profile[name]`... and the picture as `profile[avatar]` (or `avatar`).
  const upload = multipartImage({ maxBytes: deps.config.AVATAR_MAX_BYTES, fileFields: ['avatar', 'profile[avatar]'] });
  const update: RequestHandler = async (req, res) => {
    const input = parseBody(profileUpdate, unwrap(req.body, 'profile'));
    await updateProfile(deps, req.ctx, userIdOf(req), input, imageFromRequest(req, 'avatar'));
    res.json(await answer(req));
  };
  router.put('/', upload, update);
  router.patch('/', upload, update);
  router.delete('/avatar', async (req, res) => {
    await removeProfileAvatar(deps, req.ctx, userIdOf(req));
    res.json(await answer(req));
  });
  router.post('/reset_access_token', async (req, res) => {
    await resetUserToken(deps, userIdOf(req));
    res.json(await answer(req));
  });
  router.post('/availability', async (req, res) => {
    const input = parseBody(availabilityUpdate, unwrap(req.body, 'profile'));
    await setAvailability(deps, req.ctx, userIdOf(req), input.availability, input.account_id);
    res.json(await answer(req));
  });
  return router;
}
