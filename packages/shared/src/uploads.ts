import { createHash, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import multer from 'multer';
import { BadRequestError, ValidationError } from './errors';

/** The picture kinds accepted for avatars. */
export const ACCEPTED_IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The image kind told by a file's leading bytes (a declared content type is not trusted); null if none we accept. */
export function imageTypeOf(b: Buffer): string | null {
  if (b.length >= 8 && b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && (b.subarray(0, 6).toString('latin1') === 'GIF87a' || b.subarray(0, 6).toString('latin1') === 'GIF89a')) return 'image/gif';
  if (b.length >= 12 && b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
  return null;
}

/** An uploaded image that passed the checks, ready to store; `token` names it in a public URL (new per upload). */
export interface ImageUpload {
  token: string;
  content_type: string;
  byte_size: number;
  sha256: string;
  data: Buffer;
}

export interface MultipartImageOptions {
  /** Largest file accepted, in bytes. */
  maxBytes: number;
  /** Names the one file may come under (`avatar`, or Rails-style `profile[avatar]`); the first names it in errors. */
  fileFields: string[];
}

/**
 * Parses a `multipart/form-data` body with at most one file, under one of `fileFields`
 * (text fields into req.body, `x[key]` into objects); other requests pass through untouched.
 * Limits answer with the Error body: a file too large or under another name is 422, a broken
 * form 400.
 */
export function multipartImage(opts: MultipartImageOptions): RequestHandler {
  const field = opts.fileFields[0] ?? 'file';
  const parse = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: opts.maxBytes, files: 1, fields: 100, fieldSize: 64 * 1024, parts: 101 },
  }).any();
  return (req, res, next) => {
    if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) return next();
    parse(req, res, (err?: unknown) => {
      if (!err) {
        req.body ??= {};
        const stray = ((req.files as Express.Multer.File[] | undefined) ?? []).find((f) => !opts.fileFields.includes(f.fieldname));
        if (stray) return next(ValidationError.field(stray.fieldname, `is not an accepted file field (send one file, named ${field})`, 'unexpected_file'));
        return next();
      }
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(ValidationError.field(field, `is too large (maximum is ${opts.maxBytes} bytes)`, 'too_large'));
        if (err.code === 'LIMIT_UNEXPECTED_FILE' || err.code === 'LIMIT_FILE_COUNT') {
          return next(ValidationError.field(err.field ?? field, `is not an accepted file field (send one file, named ${field})`, 'unexpected_file'));
        }
        return next(new BadRequestError(`Multipart body refused: ${err.message}`, [{ field: err.field ?? 'body', message: err.message, code: 'invalid_multipart' }], 'invalid_multipart'));
      }
      next(new BadRequestError('Malformed multipart body', [{ field: 'body', message: (err as Error).message ?? 'is not valid multipart/form-data', code: 'invalid_multipart' }], 'invalid_multipart'));
    });
  };
}

/** The checked image of a request parsed by multipartImage, if it carried one; `field` names it in errors. */
export function imageFromRequest(req: Request, field: string): ImageUpload | undefined {
  const file = ((req.files as Express.Multer.File[] | undefined) ?? [])[0];
  if (!file) return undefined;
  const data = file.buffer;
  if (data.length === 0) throw ValidationError.field(field, 'is empty', 'invalid');
  const type = imageTypeOf(data);
  if (!type) throw ValidationError.field(field, `must be an image (${ACCEPTED_IMAGE_TYPES.join(', ')})`, 'invalid_type');
  return {
    token: randomBytes(24).toString('base64url'),
    content_type: type,
    byte_size: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
    data,
  };
}

/** A stored image as its public URL serves it: the token names one upload forever, so it caches forever. */
export function sendStoredImage(res: Response, img: { content_type: string; byte_size: number; sha256: string; data: Buffer }): void {
  res.setHeader('content-type', img.content_type);
  res.setHeader('content-length', String(img.byte_size));
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'public, max-age=31536000, immutable');
  res.setHeader('etag', `"${img.sha256}"`);
  res.end(img.data);
}

/** Upload tokens are base64url; anything else names no upload (no query needed). */
export const IMAGE_TOKEN_RE = /^[A-Za-z0-9_-]{16,64}$/;
