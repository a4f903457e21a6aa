import { z } from 'zod';
import { AppError, callService, systemContext, UnavailableError, ValidationError, type RequestContext, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';
import type { AgentData } from './repository';

const agentSchema = z.looseObject({ id: z.number().int() });

/**
 * Asks the identity owner (the gateway's internal API) whether `userId` is an agent of the
 * account: strongly consistent, never a local guess. Unknown or not a member -> 422 naming
 * `field`. A gateway that does not serve the route yet counts as unavailable, not as "no".
 */
export async function requireAgent(deps: ServiceDeps<HelpcenterConfig>, ctx: RequestContext, accountId: number, userId: number, field = 'author_id'): Promise<AgentData> {
  const callCtx = systemContext('helpcenter', accountId, ctx.requestId);
  let answer: unknown;
  try {
    answer = await callService(deps.config.GATEWAY_INTERNAL_URL, `/internal/accounts/${accountId}/agents/${userId}`, callCtx, deps.config.INTERNAL_SECRET);
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      if (err.items.some((i) => i.code === 'route_not_found')) throw new UnavailableError('Agent lookup is not available from the identity service');
      throw ValidationError.field(field, 'is not an agent of this account', 'not_found');
    }
    // Anything else (identity down, failing, or refusing us) says nothing about the author:
    // the caller may retry, so 503 rather than the peer's own status or codes.
    if (err instanceof UnavailableError) throw err;
    throw new UnavailableError(`Could not check ${field} with the identity service`);
  }
  const parsed = agentSchema.safeParse(answer);
  if (!parsed.success || parsed.data.id !== userId) throw new UnavailableError('The identity service answered an unexpected agent record');
  return parsed.data as AgentData;
}
