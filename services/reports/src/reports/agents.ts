import type { Executor, Peers, ProjectionKit } from '@parley/shared';

/**
 * The ids of an account's agents (every member, as the gateway lists them), in the gateway's
 * order (name, then id), for the agents table. The first time, the gateway's list is stored as
 * read-through copies (version `-infinity`: an agent.* event or a removal already stored wins)
 * and the account is marked complete (`agent_lists`); from then on agent.added / agent.removed /
 * user.updated keep the copies, so the list is read here. An agent added a moment ago shows once
 * its event is handled (seconds), as every other number of the report.
 */
export async function accountAgentIds(db: Executor, peers: Peers, projections: ProjectionKit, accountId: number, requestId: string): Promise<number[]> {
  const listed = await db.query('SELECT 1 FROM agent_lists WHERE account_id = $1', [accountId]);
  if ((listed.rowCount ?? 0) > 0) {
    const copies = await projections.list(db, 'agent', accountId);
    return copies
      .map((a) => ({ id: a.id, name: (a.name ?? '').toLowerCase() }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id))
      .map((a) => a.id);
  }
  const agents = await peers.identity.agents(accountId, { requestId });
  for (const agent of agents) await projections.remember(db, 'agent', accountId, agent.id, agent);
  await db.query('INSERT INTO agent_lists (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [accountId]);
  return agents.map((a) => a.id);
}
