import { z } from 'zod';

/** Chatwoot's Label title: letters, digits, `-` and `_`, stored lowercase. */
const title = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[\p{L}\p{N}_-]+$/u, 'may only contain letters, digits, - and _')
  .transform((t) => t.toLowerCase());

const fields = {
  title,
  description: z.string().max(20_000).nullable().optional(),
  color: z.string().regex(/^#[0-9a-fA-F]{6}$/, 'must be a hex colour like #1f93ff').optional(),
  show_on_sidebar: z.boolean().optional(),
};

export const createLabelBody = z.object(fields);
export const updateLabelBody = z.object({ ...fields, title: title.optional() });
export type LabelInput = z.infer<typeof updateLabelBody>;

export const labelResponse = z
  .object({
    id: z.number(),
    title: z.string(),
    description: z.string().nullable(),
    color: z.string(),
    show_on_sidebar: z.boolean(),
  })
  .meta({ id: 'Label' });
export type LabelResponse = z.infer<typeof labelResponse>;
export const labelListResponse = z.object({ payload: z.array(labelResponse) });
