import { z } from 'zod';
import { MAX_CONTENT } from '../messages/schemas';

const labels = z.array(z.string().trim().min(1).max(255)).min(1).max(100);
const nullableId = z.number().int().positive().max(2_147_483_647).nullable();

/** docs/contracts.md "Commands (automation)". */
export const commandSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('add_labels'), labels }),
  z.object({ type: z.literal('remove_labels'), labels }),
  z.object({ type: z.literal('assign_agent'), assignee_id: nullableId }),
  z.object({ type: z.literal('assign_team'), team_id: nullableId }),
  z.object({ type: z.literal('change_priority'), priority: z.enum(['low', 'medium', 'high', 'urgent']).nullable() }),
  z.object({
    type: z.literal('change_status'),
    status: z.enum(['open', 'resolved', 'pending', 'snoozed']),
    snoozed_until: z.iso.datetime({ offset: true }).nullable().optional(),
  }),
  z.object({ type: z.literal('mute') }),
  z.object({ type: z.literal('send_message'), content: z.string().min(1).max(MAX_CONTENT), private: z.boolean().default(false) }),
]);
export type Command = z.infer<typeof commandSchema>;

export const commandBody = z.object({
  idempotency_key: z.string().min(1).max(255),
  actor: z.object({
    type: z.literal('automation_rule'),
    id: z.union([z.number(), z.string()]),
    name: z.string().nullable().optional(),
  }),
  causation_id: z.string().max(255).nullable().optional(),
  command: commandSchema,
});
export type CommandInput = z.infer<typeof commandBody>;
