import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '@parley/shared';
import type { InboxRow } from '../inboxes/repository';

/** Chatwoot answers a failed identity check with a 500; we say 401 with the Error body. */
export function identityRefused(message: string): AppError {
  return new AppError(401, 'invalid_identifier_hash', `identifier_hash ${message}`, [{ field: 'identifier_hash', message, code: 'invalid_identifier_hash' }]);
}

/** Lowercase hex HMAC-SHA256 of `identifier` keyed by the inbox's `hmac_token` (Chatwoot's identity validation). */
export function identifierHash(hmacToken: string, identifier: string): string {
  return createHmac('sha256', hmacToken).update(identifier, 'utf8').digest('hex');
}

/**
 * The inbox's identity rule for one request. No hash: fine unless the inbox makes it
 * mandatory. A hash: it must be the HMAC of `identifier` (the empty string when absent).
 * Returns whether the request proved who it is.
 */
export function checkIdentity(inbox: InboxRow, identifier: string | null | undefined, hash: string | undefined): boolean {
  if (hash === undefined || hash === '') {
    if (inbox.hmac_mandatory) throw identityRefused('is required by this inbox');
    return false;
  }
  if (!inbox.hmac_token) throw identityRefused('cannot be verified for this inbox');
  const expected = Buffer.from(identifierHash(inbox.hmac_token, identifier ?? ''), 'utf8');
  const given = Buffer.from(hash.toLowerCase(), 'utf8');
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw identityRefused('does not match identifier');
  return true;
}
