import { randomBytes } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Rails' has_secure_token: 24 random base58 characters. */
export function secureToken(length = 24): string {
  let out = '';
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // 58 * 4 = 232: reject the top of the byte range so every character is equally likely.
      if (b < 232) out += BASE58[b % 58];
      if (out.length === length) break;
    }
  }
  return out;
}
