import { z } from 'zod';

export const createCannedResponseBody = z.object({
  short_code: z.string().trim().min(1).max(255),
  content: z.string().trim().min(1).max(20_000),
});
export const updateCannedResponseBody = createCannedResponseBody.partial();
export type CannedResponseInput = z.infer<typeof updateCannedResponseBody>;

export const listCannedResponsesQuery = z.strictObject({ search: z.string().max(255).optional() });

/** Chatwoot renders the raw record (ISO timestamps). */
export const cannedResponseResponse = z
  .object({
    id: z.number(),
    account_id: z.number(),
    short_code: z.string(),
    content: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'CannedResponse' });
export type CannedResponseResponse = z.infer<typeof cannedResponseResponse>;
export const cannedResponseListResponse = z.array(cannedResponseResponse);
