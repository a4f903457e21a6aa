-- Up Migration
-- Pictures uploaded to the profile (multipart `avatar`, as Chatwoot's profile form sends it),
-- checked for size and type. Served without a credential at
-- /public/api/v1/user_avatars/{token} (unguessable, new on every upload), the URL the user's
-- avatar_url then holds, so it works in an <img> tag.
CREATE TABLE user_avatars (
  user_id integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  token text NOT NULL,
  content_type text NOT NULL,
  byte_size integer NOT NULL,
  sha256 text NOT NULL,
  data bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_avatars__token ON user_avatars (token);

-- Down Migration
DROP TABLE user_avatars;
