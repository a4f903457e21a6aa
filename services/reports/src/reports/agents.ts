import { PROJECTION_TABLE, type Executor, type Peers, type ProjectionKit } from '@parley/shared';

/**
 * The ids of an account's agents (every member, as the gateway lists them), in the gateway's
 * order (name, then id), for the agents table. The first time, the gateway's list is stored as
 * read-through copies (version `-infinity`: an agent.* event or a removal already stored wins)
 * and the account is marked complete (`agent_lists`); from then on agent.added / agent.removed /
 * user.updated keep the copies, so the list is read here. An agent added a moment ago shows once
 * its event is handled (seconds), as every other number of the report.
 */
export async function accountAgentIds(db: Executor, peers: Peers, projections: ProjectionKit, accountId: number, requestId: string): Promise<number[]> {
  // One round trip: whether the copies are complete, and their ids sorted by Postgres as the
  // gateway sorts its list (lower(name), id: the same collation, not JavaScript's).
  const { rows } = await db.query<{ listed: boolean; ids: number[] }>(
    `SELECT EXISTS (SELECT 1 FROM agent_lists WHERE account_id = $1) AS listed,
            coalesce((SELECT array_agg(id ORDER BY lower(data->>'name'), id) FROM ${PROJECTION_TABLE}
                       WHERE account_id = $1 AND kind = 'agent' AND data IS NOT NULL), '{}') AS ids`,
    [accountId],
  );
  if (rows[0]?.listed) return rows[0].ids.map(Number);
  const agents = await peers.identity.agents(accountId, { requestId });
  for (const agent of agents) await projections.remember(db, 'agent', accountId, agent.id, agent);
  await db.query('INSERT INTO agent_lists (account_id) VALUES ($1) ON CONFLICT DO NOTHING', [accountId]);
  return agents.map((a) => a.id);
}
