import { z } from 'zod';
import { defineOperations, type HttpMethod, type OperationSpec, type SecurityScheme } from '@parley/shared';
import * as s from './identity/schemas';

const ACCOUNT = '/api/v1/accounts/{account_id}';
const PLATFORM = '/platform/api/v1';
const id = z.object({ id: z.string().regex(/^\d+$/) });
const teamId = z.object({ team_id: z.string().regex(/^\d+$/) });

type Op = Omit<OperationSpec, 'method' | 'security' | 'tags' | 'responses'> & {
  response?: z.ZodType;
  errors?: number[];
};

/** Builds one operation answering 200. */
function op(method: HttpMethod, tag: string, security: SecurityScheme[], o: Op): OperationSpec {
  const { response, ...rest } = o;
  return { method, tags: [tag], security, ...rest, responses: { 200: { description: 'OK', ...(response ? { schema: response } : {}) } } };
}

const user: SecurityScheme[] = ['userApiKey'];
const platform: SecurityScheme[] = ['platformAppApiKey'];

/** PATCH and its PUT twin: Chatwoot routes both verbs to update. */
function crudTwins(method: 'patch', tag: string, security: SecurityScheme[], o: Op): OperationSpec[] {
  return [op(method, tag, security, o), op('put', tag, security, { ...o, operationId: `${o.operationId}Put`, summary: `${o.summary} (PUT)` })];
}

/** The gateway's own operations: Platform API, profile, account, agents, teams, agent bots. */
export const operations = defineOperations([
  // ---- Platform API ----
  op('get', 'Platform', platform, { path: `${PLATFORM}/accounts`, operationId: 'platformListAccounts', summary: 'List accounts', response: z.array(s.platformAccountSchema), errors: [401] }),
  op('post', 'Platform', platform, { path: `${PLATFORM}/accounts`, operationId: 'platformCreateAccount', summary: 'Create an account', body: s.platformAccountCreate, response: s.platformAccountSchema, errors: [400, 401, 422], requestExample: { name: 'Acme', features: { audit_logs: true } } }),
  op('get', 'Platform', platform, { path: `${PLATFORM}/accounts/{id}`, operationId: 'platformGetAccount', summary: 'Show an account', params: id, response: s.platformAccountSchema, errors: [401, 404] }),
  ...crudTwins('patch', 'Platform', platform, { path: `${PLATFORM}/accounts/{id}`, operationId: 'platformUpdateAccount', summary: 'Update an account', params: id, body: s.platformAccountUpdate, response: s.platformAccountSchema, errors: [400, 401, 404, 422] }),
  op('delete', 'Platform', platform, { path: `${PLATFORM}/accounts/{id}`, operationId: 'platformDeleteAccount', summary: 'Delete an account', params: id, response: s.emptyObject, errors: [401, 404] }),
  op('get', 'Platform', platform, { path: `${PLATFORM}/accounts/{id}/account_users`, operationId: 'platformListAccountUsers', summary: "List an account's users", params: id, response: z.array(s.accountUserSchema), errors: [401, 404] }),
  op('post', 'Platform', platform, { path: `${PLATFORM}/accounts/{id}/account_users`, operationId: 'platformCreateAccountUser', summary: 'Add a user to an account (upsert of the role)', params: id, body: s.accountUserCreate, response: s.accountUserSchema, errors: [400, 401, 404, 422], requestExample: { user_id: 1, role: 'administrator' } }),
  op('delete', 'Platform', platform, { path: `${PLATFORM}/accounts/{id}/account_users`, operationId: 'platformDeleteAccountUser', summary: 'Remove a user from an account', params: id, body: s.accountUserDelete, response: s.emptyObject, errors: [400, 401, 404, 422] }),
  op('post', 'Platform', platform, { path: `${PLATFORM}/users`, operationId: 'platformCreateUser', summary: 'Create a user (an existing email answers that user unchanged)', body: s.platformUserCreate, response: s.userRecordSchema, errors: [400, 401, 422], requestExample: { name: 'Ann', email: 'ann@acme.test', password: 'Secret-pass-1' } }),
  op('get', 'Platform', platform, { path: `${PLATFORM}/users/{id}`, operationId: 'platformGetUser', summary: 'Show a user', params: id, response: s.userRecordSchema, errors: [401, 404] }),
  ...crudTwins('patch', 'Platform', platform, { path: `${PLATFORM}/users/{id}`, operationId: 'platformUpdateUser', summary: 'Update a user (custom_attributes merged)', params: id, body: s.platformUserUpdate, response: s.userRecordSchema, errors: [400, 401, 404, 409, 422] }),
  op('delete', 'Platform', platform, { path: `${PLATFORM}/users/{id}`, operationId: 'platformDeleteUser', summary: 'Delete a user', params: id, response: s.emptyObject, errors: [401, 404] }),
  op('post', 'Platform', platform, { path: `${PLATFORM}/users/{id}/token`, operationId: 'platformUserToken', summary: "A user's access token", params: id, response: s.userTokenSchema, errors: [401, 404] }),
  op('get', 'Platform', platform, { path: `${PLATFORM}/agent_bots`, operationId: 'platformListAgentBots', summary: 'List agent bots', response: z.array(s.botSchema), errors: [401] }),
  op('post', 'Platform', platform, { path: `${PLATFORM}/agent_bots`, operationId: 'platformCreateAgentBot', summary: 'Create an agent bot (global without account_id)', body: s.platformBotCreate, response: s.botSchema, errors: [400, 401, 422] }),
  op('get', 'Platform', platform, { path: `${PLATFORM}/agent_bots/{id}`, operationId: 'platformGetAgentBot', summary: 'Show an agent bot', params: id, response: s.botSchema, errors: [401, 404] }),
  ...crudTwins('patch', 'Platform', platform, { path: `${PLATFORM}/agent_bots/{id}`, operationId: 'platformUpdateAgentBot', summary: 'Update an agent bot', params: id, body: s.platformBotUpdate, response: s.botSchema, errors: [400, 401, 404, 422] }),
  op('delete', 'Platform', platform, { path: `${PLATFORM}/agent_bots/{id}`, operationId: 'platformDeleteAgentBot', summary: 'Delete an agent bot', params: id, response: s.emptyObject, errors: [401, 404] }),

  // ---- Profile (SPEC operation 8) ----
  op('get', 'Profile', user, { path: '/api/v1/profile', operationId: 'getProfile', summary: 'Fetch user profile', response: s.userRecordSchema, errors: [401, 403] }),
  ...crudTwins('patch', 'Profile', user, {
    path: '/api/v1/profile',
    operationId: 'updateProfile',
    summary: 'Update the profile (flat or under `profile`)',
    description: 'As multipart/form-data (`profile[name]`, ...), the picture may be uploaded as `avatar` or `profile[avatar]` (PNG, JPEG, GIF or WebP); its URL becomes `avatar_url`.',
    body: s.profileUpdate,
    multipart: true,
    response: s.userRecordSchema,
    errors: [400, 401, 403, 409, 422],
  }),
  op('delete', 'Profile', user, { path: '/api/v1/profile/avatar', operationId: 'deleteProfileAvatar', summary: 'Remove the profile picture (uploaded or by URL)', response: s.userRecordSchema, errors: [401, 403] }),
  op('get', 'Profile', [], {
    path: '/public/api/v1/user_avatars/{token}',
    operationId: 'publicGetUserAvatar',
    summary: 'An uploaded profile picture',
    description: "The image bytes (image/png, image/jpeg, image/gif or image/webp), not JSON: the URL a user's `avatar_url` names after an upload; the token changes with every upload.",
    params: z.object({ token: z.string().describe('Unguessable name of one upload') }),
    errors: [404],
  }),
  op('post', 'Profile', user, { path: '/api/v1/profile/reset_access_token', operationId: 'resetProfileAccessToken', summary: 'Replace the access token (the old one stops working at once)', response: s.userRecordSchema, errors: [401, 403] }),
  op('post', 'Profile', user, { path: '/api/v1/profile/availability', operationId: 'setProfileAvailability', summary: 'Set availability in an account (default: the active one)', body: s.availabilityUpdate, response: s.userRecordSchema, errors: [400, 401, 403, 422] }),

  // ---- Account ----
  op('get', 'Account', user, { path: ACCOUNT, operationId: 'getAccount', summary: 'Show the account', response: s.accountSchema, errors: [401, 403, 404] }),
  ...crudTwins('patch', 'Account', user, { path: ACCOUNT, operationId: 'updateAccount', summary: 'Update the account (administrators)', body: s.accountUpdate, response: s.accountSchema, errors: [400, 401, 403, 404, 422] }),

  // ---- Agents (SPEC operation 12) ----
  op('get', 'Agents', user, { path: `${ACCOUNT}/agents`, operationId: 'listAgents', summary: 'List agents', response: z.array(s.agentSchema), errors: [401, 403, 404] }),
  op('post', 'Agents', user, { path: `${ACCOUNT}/agents`, operationId: 'createAgent', summary: 'Add an agent (administrators)', body: s.agentCreate, response: s.agentSchema, errors: [400, 401, 403, 404, 422], requestExample: { name: 'Nina', email: 'nina@acme.test', role: 'agent' } }),
  ...crudTwins('patch', 'Agents', user, { path: `${ACCOUNT}/agents/{id}`, operationId: 'updateAgent', summary: 'Update an agent (administrators)', params: id, body: s.agentUpdate, response: s.agentSchema, errors: [400, 401, 403, 404, 422] }),
  op('delete', 'Agents', user, { path: `${ACCOUNT}/agents/{id}`, operationId: 'deleteAgent', summary: 'Delete agent', description: "Removes the agent from the account (administrators); their token stops opening it at once. A user left without any account is deleted.", params: id, response: s.emptyObject, errors: [401, 403, 404] }),

  // ---- Teams ----
  op('get', 'Teams', user, { path: `${ACCOUNT}/teams`, operationId: 'listTeams', summary: 'List teams', response: z.array(s.teamSchema), errors: [401, 403, 404] }),
  op('post', 'Teams', user, { path: `${ACCOUNT}/teams`, operationId: 'createTeam', summary: 'Create a team (administrators)', body: s.teamCreate, response: s.teamSchema, errors: [400, 401, 403, 404, 409, 422] }),
  op('get', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}`, operationId: 'getTeam', summary: 'Show a team', params: teamId, response: s.teamSchema, errors: [401, 403, 404] }),
  ...crudTwins('patch', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}`, operationId: 'updateTeam', summary: 'Update a team (administrators)', params: teamId, body: s.teamUpdate, response: s.teamSchema, errors: [400, 401, 403, 404, 409, 422] }),
  op('delete', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}`, operationId: 'deleteTeam', summary: 'Delete a team (administrators)', params: teamId, response: s.emptyObject, errors: [401, 403, 404] }),
  op('get', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}/team_members`, operationId: 'listTeamMembers', summary: "List a team's members", params: teamId, response: z.array(s.agentSchema), errors: [401, 403, 404] }),
  op('post', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}/team_members`, operationId: 'addTeamMembers', summary: 'Add members (administrators)', params: teamId, body: s.teamMembersBody, response: z.array(s.agentSchema), errors: [400, 401, 403, 404, 422] }),
  op('patch', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}/team_members`, operationId: 'setTeamMembers', summary: 'Make the members exactly these (administrators)', params: teamId, body: s.teamMembersBody, response: z.array(s.agentSchema), errors: [400, 401, 403, 404, 422] }),
  op('delete', 'Teams', user, { path: `${ACCOUNT}/teams/{team_id}/team_members`, operationId: 'removeTeamMembers', summary: 'Remove members (administrators)', params: teamId, body: s.teamMembersBody, response: z.array(s.agentSchema), errors: [400, 401, 403, 404, 422] }),

  // ---- Agent bots ----
  op('get', 'Agent bots', user, { path: `${ACCOUNT}/agent_bots`, operationId: 'listAgentBots', summary: "List the account's and global agent bots", response: z.array(s.botSchema), errors: [401, 403, 404] }),
  op('post', 'Agent bots', user, { path: `${ACCOUNT}/agent_bots`, operationId: 'createAgentBot', summary: 'Create an agent bot (administrators; answers its token)', body: s.accountBotCreate, response: s.botSchema, errors: [400, 401, 403, 404, 422] }),
  op('get', 'Agent bots', user, { path: `${ACCOUNT}/agent_bots/{id}`, operationId: 'getAgentBot', summary: 'Show an agent bot', params: id, response: s.botSchema, errors: [401, 403, 404] }),
  ...crudTwins('patch', 'Agent bots', user, { path: `${ACCOUNT}/agent_bots/{id}`, operationId: 'updateAgentBot', summary: 'Update an agent bot (administrators)', params: id, body: s.accountBotUpdate, response: s.botSchema, errors: [400, 401, 403, 404, 422] }),
  op('delete', 'Agent bots', user, { path: `${ACCOUNT}/agent_bots/{id}`, operationId: 'deleteAgentBot', summary: 'Delete an agent bot (administrators)', params: id, response: s.emptyObject, errors: [401, 403, 404] }),
  op('post', 'Agent bots', user, { path: `${ACCOUNT}/agent_bots/{id}/reset_access_token`, operationId: 'resetAgentBotToken', summary: "Replace a bot's token (administrators)", params: id, response: s.botSchema, errors: [401, 403, 404] }),
]);
