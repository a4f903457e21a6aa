import type { Request, RequestHandler } from 'express';
import multer from 'multer';
import { BadRequestError, PayloadTooLargeError, ValidationError } from '@parley/shared';
import type { UploadedFile } from './service';
import { assertNoNulInBody } from '../common/nul-guard';

const MAX_FILES = 10;

/**
 * Accepts `multipart/form-data` bodies (Chatwoot clients send attachments that way, with
 * `attachments[]` file fields and the other fields as text); JSON bodies pass through.
 */
export function multipartBody(config: { ATTACHMENT_MAX_BYTES: number }): RequestHandler {
  const upload = multer({ storage: multer.memoryStorage(), limits: { fileSize: config.ATTACHMENT_MAX_BYTES, files: MAX_FILES, fields: 100, fieldSize: 200_000 } }).any();
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) return next();
    upload(req, res, (err?: unknown) => {
      if (!err) {
        const stray = ((req.files as Express.Multer.File[] | undefined) ?? []).find((f) => !/^attachments(\[\d*\])?$/.test(f.fieldname));
        if (stray) return next(ValidationError.field(stray.fieldname, 'is not a file field (use attachments[])', 'unexpected_file'));
        try {
          assertNoNulInBody(req.body);
        } catch (e) {
          return next(e);
        }
        return next();
      }
      if (err instanceof multer.MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') return next(new PayloadTooLargeError(`An attachment is larger than ${config.ATTACHMENT_MAX_BYTES} bytes`));
        if (err.code === 'LIMIT_FILE_COUNT') return next(ValidationError.field('attachments', `at most ${MAX_FILES} files`, 'too_many'));
        return next(new BadRequestError(`Malformed multipart body: ${err.message}`, [{ field: err.field ?? 'body', message: err.message, code: 'malformed_multipart' }], 'malformed_multipart'));
      }
      next(new BadRequestError('Malformed multipart body', [{ field: 'body', message: (err as Error).message ?? 'is not valid multipart', code: 'malformed_multipart' }], 'malformed_multipart'));
    });
  };
}

export function uploadedFiles(req: Request): UploadedFile[] {
  const files = (req.files as Express.Multer.File[] | undefined) ?? [];
  return files.map((f) => ({ originalname: f.originalname, mimetype: f.mimetype, size: f.size, buffer: f.buffer }));
}
