import { Router } from 'express';
import { IMAGE_TOKEN_RE, NotFoundError, sendStoredImage } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { findUserAvatarByToken } from './avatars-repository';

/** Mounted at `/public/api/v1/user_avatars`: uploaded profile pictures, by their unguessable token. */
export function userAvatarsRouter(deps: GatewayDeps): Router {
  const r = Router();
  r.get('/:token', async (req, res) => {
    const token = String(req.params['token'] ?? '');
    const avatar = IMAGE_TOKEN_RE.test(token) ? await findUserAvatarByToken(deps.pool, token) : null;
    if (!avatar) throw new NotFoundError('Avatar', 'token');
    sendStoredImage(res, avatar);
  });
  return r;
}
