-- Up Migration
-- SPEC's Article record types `position` as a number: every article has one. Articles whose
-- position was cleared (possible before this migration) are appended to their category.
UPDATE articles AS a SET position = (
  SELECT coalesce(max(b.position), 0) + 10 FROM articles b
   WHERE b.account_id = a.account_id AND b.portal_id = a.portal_id AND b.category_id IS NOT DISTINCT FROM a.category_id
) WHERE a.position IS NULL;
ALTER TABLE articles ALTER COLUMN position SET NOT NULL;

-- Down Migration
ALTER TABLE articles ALTER COLUMN position DROP NOT NULL;
