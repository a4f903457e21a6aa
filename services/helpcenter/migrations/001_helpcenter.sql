-- Up Migration

-- Portal slugs and custom domains are unique across all accounts (as in Chatwoot): the public
-- API addresses a portal by slug alone, with no account in the path.
CREATE TABLE portals (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  name text NOT NULL,
  slug text NOT NULL,
  custom_domain text,
  color text,
  header_text text,
  homepage_link text,
  page_title text,
  config jsonb NOT NULL DEFAULT '{"allowed_locales": ["en"], "default_locale": "en"}',
  archived boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT portals__slug UNIQUE (slug),
  CONSTRAINT portals__custom_domain UNIQUE (custom_domain)
);
CREATE INDEX portals_account_idx ON portals (account_id, id);

CREATE TABLE categories (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  portal_id integer NOT NULL CONSTRAINT categories__portal_id REFERENCES portals (id) ON DELETE CASCADE,
  locale text NOT NULL,
  slug text NOT NULL,
  name text NOT NULL,
  description text,
  position integer,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT categories__slug UNIQUE (portal_id, locale, slug)
);
CREATE INDEX categories_portal_idx ON categories (account_id, portal_id, locale, position);

CREATE TABLE articles (
  id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id integer NOT NULL,
  portal_id integer NOT NULL CONSTRAINT articles__portal_id REFERENCES portals (id) ON DELETE CASCADE,
  -- Deleting a category or a root article leaves its articles in place (Chatwoot nullifies).
  category_id integer CONSTRAINT articles__category_id REFERENCES categories (id) ON DELETE SET NULL,
  author_id integer NOT NULL,
  associated_article_id integer CONSTRAINT articles__associated_article_id REFERENCES articles (id) ON DELETE SET NULL,
  title text NOT NULL,
  slug text NOT NULL,
  content text NOT NULL,
  description text,
  status smallint NOT NULL DEFAULT 0 CHECK (status IN (0, 1, 2)),
  locale text NOT NULL,
  meta jsonb NOT NULL DEFAULT '{}',
  position integer,
  views integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- 'simple' (no stemming) as Chatwoot's pg_search default; queries use prefix matching.
  search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple'::regconfig, coalesce(title, '')), 'A') ||
    setweight(to_tsvector('simple'::regconfig, coalesce(description, '')), 'B') ||
    setweight(to_tsvector('simple'::regconfig, coalesce(content, '')), 'C')
  ) STORED,
  CONSTRAINT articles__slug UNIQUE (portal_id, slug)
);
CREATE INDEX articles_portal_updated_idx ON articles (account_id, portal_id, updated_at DESC, id DESC);
CREATE INDEX articles_category_position_idx ON articles (account_id, portal_id, category_id, position);
CREATE INDEX articles_author_idx ON articles (account_id, author_id);
CREATE INDEX articles_associated_idx ON articles (associated_article_id) WHERE associated_article_id IS NOT NULL;
-- The public API reads published articles of one portal by position.
CREATE INDEX articles_public_idx ON articles (portal_id, status, position, id);
CREATE INDEX articles_search_idx ON articles USING gin (search);

-- Display projection of the identity service's agents (author{} in article answers). Written
-- through whenever an author is validated against the gateway, refreshed by agent/user events.
-- Validation itself never trusts it: it always asks the gateway.
CREATE TABLE authors (
  account_id integer NOT NULL,
  user_id integer NOT NULL,
  data jsonb NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, user_id)
);
CREATE INDEX authors_user_idx ON authors (user_id);

-- Down Migration
DROP TABLE authors;
DROP TABLE articles;
DROP TABLE categories;
DROP TABLE portals;
