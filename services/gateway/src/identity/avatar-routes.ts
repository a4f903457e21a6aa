import { z } from 'zod';
import { IMAGE_TOKEN_RE, NotFoundError, pathParam, routeKit, sendStoredImage } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { findUserAvatarByToken } from './avatars-repository';

const route = routeKit<GatewayDeps>();
export const USER_AVATARS = '/public/api/v1/user_avatars';

/** Uploaded profile pictures, by their unguessable token (the gateway's own public files). */
export const avatarRoutes = [
  route({
    method: 'get', path: `${USER_AVATARS}/{token}`, operationId: 'publicGetUserAvatar', summary: 'An uploaded profile picture', tags: ['Profile'], security: [],
    description: "The image bytes (image/png, image/jpeg, image/gif or image/webp), not JSON: the URL a user's `avatar_url` names after an upload; the token changes with every upload.",
    params: { token: pathParam('Avatar', z.string().describe('Unguessable name of one upload')) },
    errors: [404],
    handler: async ({ params, res }, deps) => {
      const avatar = IMAGE_TOKEN_RE.test(params.token) ? await findUserAvatarByToken(deps.pool, params.token) : null;
      if (!avatar) throw new NotFoundError('Avatar', 'token');
      sendStoredImage(res, avatar);
    },
  }),
];
