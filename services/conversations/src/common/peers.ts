import type { ContactSnapshot as ContactContract } from '@parley/shared';

/** The owners' records as this service reads them: the contracts, and the projection kit's copies of agents and bots. */
export type { AgentCopy as Agent, AgentBotCopy as AgentBot, ContactInbox, ResolvedContactInbox, Team } from '@parley/shared';

/** docs/contracts.md `ContactSnapshot`; the public API's contact view also reads fields older copies may carry. */
export type ContactSnapshot = ContactContract & Record<string, unknown>;
