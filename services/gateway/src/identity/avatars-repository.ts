import type { Executor, ImageUpload } from '@parley/shared';

/** Where uploaded profile pictures are served (no credential: the token is unguessable and new per upload). */
export const USER_AVATAR_PATH = '/public/api/v1/user_avatars';

export function userAvatarUrl(publicBaseUrl: string, token: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${USER_AVATAR_PATH}/${token}`;
}

export async function upsertUserAvatar(db: Executor, userId: number, file: ImageUpload): Promise<void> {
  await db.query(
    `INSERT INTO user_avatars (user_id, token, content_type, byte_size, sha256, data) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (user_id) DO UPDATE SET token = EXCLUDED.token, content_type = EXCLUDED.content_type, byte_size = EXCLUDED.byte_size,
       sha256 = EXCLUDED.sha256, data = EXCLUDED.data, created_at = now()`,
    [userId, file.token, file.content_type, file.byte_size, file.sha256, file.data],
  );
}

export async function deleteUserAvatar(db: Executor, userId: number): Promise<void> {
  await db.query('DELETE FROM user_avatars WHERE user_id = $1', [userId]);
}

export async function findUserAvatarByToken(db: Executor, token: string): Promise<{ content_type: string; byte_size: number; sha256: string; data: Buffer } | null> {
  const { rows } = await db.query<{ content_type: string; byte_size: number; sha256: string; data: Buffer }>(
    'SELECT content_type, byte_size, sha256, data FROM user_avatars WHERE token = $1',
    [token],
  );
  return rows[0] ?? null;
}
