import { Router, type Request, type Response } from 'express';
import { IMAGE_TOKEN_RE, imageFromRequest, multipartImage, NotFoundError, parseBody, parseQuery, sendStoredImage, unwrap } from '@parley/shared';
import type { AppDeps } from '../deps';
import { findAvatarByToken } from '../contacts/repository';
import { publicCreateSchema, publicShowQuerySchema, publicUpdateSchema } from '../contacts/schemas';
import { publicContactView, publicFullContact } from '../contacts/serializers';
import { publicCreateContact, publicShowContact, publicUpdateContact } from './service';

function param(req: Request, name: string): string {
  return String(req.params[name] ?? '');
}

/** Mounted at `/public/api/v1/inboxes/:inbox_identifier/contacts`: no credential (SPEC 5). */
export function publicContactsRouter(deps: AppDeps): Router {
  const r = Router({ mergeParams: true });
  const upload = multipartImage({ maxBytes: deps.config.AVATAR_MAX_BYTES, fileFields: ['avatar'] });

  r.post('/', upload, async (req, res) => {
    const input = parseBody(publicCreateSchema, unwrap(req.body, 'contact', { siblings: true }));
    const avatar = imageFromRequest(req, 'avatar');
    const { contact, contactInbox } = await publicCreateContact(deps, req.ctx, param(req, 'inbox_identifier'), input, avatar);
    res.json(publicContactView(contact, contactInbox));
  });

  r.get('/:contact_identifier', async (req, res) => {
    const q = parseQuery(publicShowQuerySchema, req.query);
    const { contact, contactInbox } = await publicShowContact(deps, req.ctx, param(req, 'inbox_identifier'), param(req, 'contact_identifier'), q);
    res.json(publicContactView(contact, contactInbox));
  });

  const update = [
    upload,
    async (req: Request, res: Response) => {
      const input = parseBody(publicUpdateSchema, unwrap(req.body, 'contact', { siblings: true }));
      const avatar = imageFromRequest(req, 'avatar');
      const { contact } = await publicUpdateContact(deps, req.ctx, param(req, 'inbox_identifier'), param(req, 'contact_identifier'), input, avatar);
      res.json(publicFullContact(contact, deps.config.PUBLIC_BASE_URL));
    },
  ];
  r.patch('/:contact_identifier', ...update);
  r.put('/:contact_identifier', ...update);

  return r;
}

/** Mounted at `/public/api/v1/contact_avatars`: uploaded pictures, by their unguessable token. */
export function publicAvatarsRouter(deps: AppDeps): Router {
  const r = Router();
  r.get('/:token', async (req, res) => {
    const token = param(req, 'token');
    const avatar = IMAGE_TOKEN_RE.test(token) ? await findAvatarByToken(deps.pool, token) : null;
    if (!avatar) throw new NotFoundError('Avatar', 'token');
    sendStoredImage(res, avatar);
  });
  return r;
}
