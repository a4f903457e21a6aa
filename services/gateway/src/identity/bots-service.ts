import { diff, NotFoundError, ValidationError, withTransaction, writeEvent, type Executor, type RequestContext } from '@parley/shared';
import type { GatewayDeps } from '../deps';
import { findAccount } from './accounts-repository';
import { deleteBot, findAccountBot, findBot, insertBot, updateBot, type BotFields, type BotRow } from './bots-repository';
import { deleteTokens, insertToken, rotateToken } from './tokens-repository';
import { botEventData } from './views';

export interface BotInput {
  name: string;
  description?: string | null | undefined;
  outgoing_url?: string | null | undefined;
  avatar_url?: string | null | undefined;
  bot_type?: string | undefined;
  bot_config?: Record<string, unknown> | undefined;
}

/** A bot and its token. `accountId` null makes a global bot (Platform API only). */
export async function createBot(deps: GatewayDeps, ctx: RequestContext, accountId: number | null, input: BotInput): Promise<{ bot: BotRow; token: string }> {
  return withTransaction(deps.pool, async (tx) => {
    if (accountId !== null && !(await findAccount(tx, accountId))) throw ValidationError.field('account_id', 'does not exist', 'not_found');
    const bot = await insertBot(tx, {
      account_id: accountId,
      name: input.name,
      description: input.description ?? null,
      outgoing_url: input.outgoing_url ?? null,
      avatar_url: input.avatar_url ?? null,
      bot_type: input.bot_type ?? 'webhook',
      bot_config: input.bot_config ?? {},
    });
    const token = await insertToken(tx, 'AgentBot', bot.id);
    await writeEvent(tx, ctx, { type: 'agent_bot.created', accountId, data: botEventData(bot) });
    return { bot, token };
  });
}

/** `scope` null: any bot (Platform API); a number: only that account's own bots. */
async function lockBot(db: Executor, id: number, scope: number | null): Promise<BotRow> {
  const bot = scope === null ? await findBot(db, id, { lock: true }) : await findAccountBot(db, scope, id, { lock: true });
  if (!bot) throw new NotFoundError('Agent bot', 'id');
  return bot;
}

export async function changeBot(deps: GatewayDeps, ctx: RequestContext, id: number, scope: number | null, patch: Partial<BotFields>): Promise<BotRow> {
  const bot = await withTransaction(deps.pool, async (tx) => {
    const before = await lockBot(tx, id, scope);
    if (patch.account_id !== undefined && patch.account_id !== null && !(await findAccount(tx, patch.account_id))) {
      throw ValidationError.field('account_id', 'does not exist', 'not_found');
    }
    const after = await updateBot(tx, id, patch);
    const changes = diff(botEventData(before), botEventData(after));
    if (Object.keys(changes).length > 0) await writeEvent(tx, ctx, { type: 'agent_bot.updated', accountId: after.account_id, data: botEventData(after), changes });
    return after;
  });
  await deps.principals.invalidateOwner(deps.pool, 'AgentBot', id);
  return bot;
}

export async function removeBot(deps: GatewayDeps, ctx: RequestContext, id: number, scope: number | null): Promise<void> {
  const tokens = await withTransaction(deps.pool, async (tx) => {
    const bot = await lockBot(tx, id, scope);
    const tokens = await deleteTokens(tx, 'AgentBot', [id]);
    await deleteBot(tx, id);
    await writeEvent(tx, ctx, { type: 'agent_bot.deleted', accountId: bot.account_id, data: botEventData(bot) });
    return tokens;
  });
  await Promise.all(tokens.map((t) => deps.principals.invalidateToken(t)));
}

export async function resetBotToken(deps: GatewayDeps, id: number, scope: number): Promise<{ bot: BotRow; token: string }> {
  const { bot, rotated } = await withTransaction(deps.pool, async (tx) => {
    const bot = await lockBot(tx, id, scope);
    const rotated = await rotateToken(tx, 'AgentBot', id);
    return { bot, rotated: rotated ?? { old: null, token: await insertToken(tx, 'AgentBot', id) } };
  });
  if (rotated.old) await deps.principals.invalidateToken(rotated.old);
  return { bot, token: rotated.token };
}
