import { z } from 'zod';

/** The ActionCable v1 JSON protocol (Rails `ActionCable::INTERNAL`). */
export const SUBPROTOCOL = 'actioncable-v1-json';

export type DisconnectReason = 'unauthorized' | 'invalid_request' | 'server_restart' | 'remote' | 'unavailable';

export const frames = {
  welcome: () => JSON.stringify({ type: 'welcome' }),
  ping: () => JSON.stringify({ type: 'ping', message: Math.floor(Date.now() / 1000) }),
  disconnect: (reason: DisconnectReason, reconnect: boolean) => JSON.stringify({ type: 'disconnect', reason, reconnect }),
  confirm: (identifier: string) => JSON.stringify({ identifier, type: 'confirm_subscription' }),
  reject: (identifier: string) => JSON.stringify({ identifier, type: 'reject_subscription' }),
  message: (identifier: string, message: unknown) => JSON.stringify({ identifier, message }),
};

/** A client frame: `{command, identifier, data?}`. */
const commandFrame = z.object({
  command: z.enum(['subscribe', 'unsubscribe', 'message']),
  identifier: z.string().min(2).max(4096),
  data: z.string().max(4096).optional(),
});
export type CommandFrame = z.infer<typeof commandFrame>;

/** JSON text that `schema` accepts, else null. */
function parseJson<S extends z.ZodType>(schema: S, raw: string): z.infer<S> | null {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return null;
  }
  const r = schema.safeParse(json);
  return r.success ? r.data : null;
}

/** Parses a client frame; null for anything that is not one (ignored, as Rails does). */
export function parseCommand(raw: string): CommandFrame | null {
  return parseJson(commandFrame, raw);
}

const positiveId = z.union([z.number().int().positive().max(2_147_483_647), z.string().regex(/^[1-9][0-9]{0,9}$/).transform(Number)]);

/** `{channel: "RoomChannel", pubsub_token, account_id?, user_id?, last_event_id?}` (the identifier is a JSON string). */
const roomIdentifier = z.object({
  channel: z.literal('RoomChannel'),
  pubsub_token: z.string().min(1).max(255),
  account_id: positiveId.nullish(),
  user_id: positiveId.nullish(),
  last_event_id: z.string().regex(/^\d{1,20}-\d{1,20}$/).nullish(),
});
export type RoomIdentifier = z.infer<typeof roomIdentifier>;

export function parseIdentifier(identifier: string): RoomIdentifier | null {
  return parseJson(roomIdentifier, identifier);
}

/** A `message` command's data: `{action: "update_presence"}` is the only action RoomChannel has. */
export function parseAction(data: string | undefined): string | null {
  return data ? (parseJson(z.object({ action: z.string() }), data)?.action ?? null) : null;
}
