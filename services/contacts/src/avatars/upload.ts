import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { BadRequestError, ValidationError } from '@parley/shared';

/** An uploaded avatar that passed the checks, ready to store. */
export interface AvatarUpload {
  token: string;
  content_type: string;
  byte_size: number;
  sha256: string;
  data: Buffer;
}

/** The image kinds we accept, told by their leading bytes (the declared type is not trusted). */
function sniff(b: Buffer): string | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && (b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

export const ACCEPTED_AVATAR_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

function isMultipart(req: Request): boolean {
  return /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
}

/**
 * Parses a multipart body (fields into req.body, `custom_attributes[key]` into an object;
 * at most one file, `avatar`) and leaves JSON requests alone. Limits answer with the Error
 * body: a file over `maxBytes` or under another name is 422, a broken form 400.
 */
export function multipartAvatar(maxBytes: number): RequestHandler {
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 100, fieldSize: 64 * 1024, parts: 101 },
  }).single('avatar');
  return (req, res, next) => {
    if (!isMultipart(req)) return next();
    parse(req, res, (err?: unknown) => {
      if (!err) {
        req.body ??= {};
        return next();
      }
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') {
          return next(ValidationError.field('avatar', `is too large (maximum is ${maxBytes} bytes)`, 'too_large'));
        }
        if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT') {
          return next(ValidationError.field(err.field ?? 'avatar', 'is not an accepted file field (send one file, named avatar)', 'unexpected_file'));
        }
        return next(new BadRequestError(`Multipart body refused: ${err.message}`, [{ field: err.field ?? 'body', message: err.message, code: 'invalid_multipart' }], 'invalid_multipart'));
      }
      next(new BadRequestError('Malformed multipart body', [{ field: 'body', message: (err as Error).message ?? 'is not valid multipart/form-data', code: 'invalid_multipart' }], 'invalid_multipart'));
    });
  };
}

/** The checked upload of this request, if it carried one. */
export function avatarFromRequest(req: Request): AvatarUpload | undefined {
  const file = req.file;
  if (!file) return undefined;
  const data = file.buffer;
  if (data.length === 0) throw ValidationError.field('avatar', 'is empty', 'invalid');
  const type = sniff(data);
  if (!type) throw ValidationError.field('avatar', `must be an image (${ACCEPTED_AVATAR_TYPES.join(', ')})`, 'invalid_type');
  return {
    token: randomBytes(24).toString('base64url'),
    content_type: type,
    byte_size: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    data,
  };
}
