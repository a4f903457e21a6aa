import { z } from 'zod';
import { jsonObject } from '../common/validation';

/** Chatwoot's enum order: conversation 0, contact 1, report 2 (names or integers in, names out). */
export const FILTER_TYPES = ['conversation', 'contact', 'report'] as const;
export type FilterType = (typeof FILTER_TYPES)[number];

const byIndex = (i: number) => FILTER_TYPES[i] as FilterType;
export const filterTypeInput = z.union(
  [z.enum(FILTER_TYPES), z.number().int().min(0).max(2).transform(byIndex), z.enum(['0', '1', '2']).transform((s) => byIndex(Number(s)))],
  { error: 'must be conversation, contact or report (or 0, 1, 2)' },
);

/** A saved filter's `query`: the filter body (`{payload: [...]}`), checked as a filter of its type when saved. */
const query = jsonObject.describe('The filter body, e.g. {"payload": [{"attribute_key": "status", "filter_operator": "equal_to", "values": ["open"]}]}; checked as a filter of filter_type');

const fields = {
  name: z.string({ error: 'must be a string' }).trim().min(1, 'must not be blank').max(255, 'is too long (maximum is 255 characters)'),
  filter_type: filterTypeInput,
  /** Chatwoot's Swagger names the field `type` (its controller ignores it); taken here as filter_type. */
  type: filterTypeInput,
  query,
};

export const createCustomFilterBody = z.object(fields).partial({ filter_type: true, type: true });
export type CreateCustomFilterInput = z.infer<typeof createCustomFilterBody>;
export const updateCustomFilterBody = z.object(fields).partial();
export type UpdateCustomFilterInput = z.infer<typeof updateCustomFilterBody>;

export const listCustomFiltersQuery = z.strictObject({ filter_type: filterTypeInput.optional() });

export const customFilterResponse = z
  .object({
    id: z.number(),
    name: z.string(),
    filter_type: z.enum(FILTER_TYPES),
    query: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'CustomFilter' });
