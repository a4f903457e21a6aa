import { createLogger, createPeers, AppError, ProjectionKit, READ_THROUGH_VERSION, UnavailableError, ValidationError, type AgentCopy, type Executor, type RequestContext, type ServiceDeps } from '@parley/shared';
import type { HelpcenterConfig } from '../config';

/**
 * The authors shown on articles: agent copies in the projection kit (kind `agent`), fed by the
 * identity events and by every author check. Article reads show the copy as it stands and never
 * call the owner (anonymous portal traffic must not fan out to identity).
 */
export const authorCopies = new ProjectionKit({ log: createLogger('helpcenter') });

/**
 * Asks the identity owner (through the peers client) whether `userId` is an agent of the
 * account: strongly consistent, never the local copy. Unknown or not a member -> 422 naming
 * `field`. A gateway that does not serve the route yet counts as unavailable, not as "no".
 */
export async function requireAgent(deps: ServiceDeps<HelpcenterConfig>, ctx: RequestContext, accountId: number, userId: number, field = 'author_id'): Promise<AgentCopy> {
  let agent: AgentCopy;
  try {
    agent = await createPeers('helpcenter', deps.config).identity.agent(accountId, userId, { requestId: ctx.requestId });
  } catch (err) {
    if (err instanceof AppError && err.status === 404) {
      if (err.items.some((i) => i.code === 'route_not_found')) throw new UnavailableError('Agent lookup is not available from the identity service');
      throw ValidationError.field(field, 'is not an agent of this account', 'not_found');
    }
    // Anything else (identity down, failing, refusing us, or answering off contract) says
    // nothing about the author: the caller may retry, so 503 rather than the peer's own status.
    if (err instanceof UnavailableError) throw err;
    throw new UnavailableError(`Could not check ${field} with the identity service`);
  }
  if (agent.id !== userId) throw new UnavailableError('The identity service answered an unexpected agent record');
  return agent;
}

/** The owner's answer to an author check, kept as a read-through copy (any agent event since or later wins). */
export async function rememberAuthor(db: Executor, accountId: number, agent: AgentCopy): Promise<void> {
  await authorCopies.upsert(db, 'agent', accountId, agent.id, agent, READ_THROUGH_VERSION);
}
