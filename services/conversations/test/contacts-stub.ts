import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';

/**
 * A tiny in-memory stand-in for the contacts service's internal API (docs/contracts.md), for
 * this service's own tests only. End-to-end tests run the real contacts service.
 */
export interface StubContact {
  id: number;
  account_id: number;
  name: string;
  email: string | null;
  phone_number: string | null;
  identifier: string | null;
  thumbnail: string;
  avatar_url: string;
  additional_attributes: Record<string, unknown>;
  custom_attributes: Record<string, unknown>;
  blocked: boolean;
  availability_status: string;
  last_activity_at: number | null;
  created_at: number;
}

export interface StubContactInbox {
  id: number;
  contact_id: number;
  inbox_id: number;
  source_id: string;
  hmac_verified: boolean;
  pubsub_token: string;
}

export interface ContactsStub {
  url: string;
  addContact(accountId: number, fields?: Partial<StubContact>): StubContact;
  /** A contact with a contact_inbox in the inbox (what the public contact API creates). */
  addContactInInbox(accountId: number, inboxId: number, fields?: Partial<StubContact> & { source_id?: string; hmac_verified?: boolean }): { contact: StubContact; contactInbox: StubContactInbox };
  contacts: Map<number, StubContact>;
  contactInboxes: StubContactInbox[];
  calls: string[];
  stop(): Promise<void>;
}

const notFound = (res: express.Response, what: string) =>
  res.status(404).json({ description: `${what} could not be found`, errors: [{ field: '', message: `${what} could not be found`, code: 'not_found' }] });

export async function startContactsStub(): Promise<ContactsStub> {
  const contacts = new Map<number, StubContact>();
  const contactInboxes: StubContactInbox[] = [];
  const calls: string[] = [];
  let seq = 1000;
  const app = express();
  app.use(express.json());
  app.use((req, _res, next) => {
    calls.push(`${req.method} ${req.path}`);
    next();
  });

  const addContact = (accountId: number, fields: Partial<StubContact> = {}): StubContact => {
    const id = fields.id ?? ++seq;
    const c: StubContact = {
      id,
      account_id: accountId,
      name: `Contact ${id}`,
      email: `c${id}@example.com`,
      phone_number: null,
      identifier: null,
      thumbnail: '',
      avatar_url: '',
      additional_attributes: {},
      custom_attributes: {},
      blocked: false,
      availability_status: 'offline',
      last_activity_at: null,
      created_at: Math.floor(Date.now() / 1000),
      ...fields,
    };
    contacts.set(id, c);
    return c;
  };
  const addContactInbox = (contactId: number, inboxId: number, sourceId?: string, hmacVerified = false): StubContactInbox => {
    const ci = { id: ++seq, contact_id: contactId, inbox_id: inboxId, source_id: sourceId ?? randomUUID(), hmac_verified: hmacVerified, pubsub_token: randomUUID() };
    contactInboxes.push(ci);
    return ci;
  };

  app.post('/internal/accounts/:a/contact_inboxes/resolve', (req, res) => {
    const accountId = Number(req.params['a']);
    const { inbox_id: inboxId, contact_id: contactId, source_id: sourceId, hmac_verified: hmac } = req.body as { inbox_id: number; contact_id?: number; source_id?: string; hmac_verified?: boolean };
    if (contactId !== undefined) {
      const contact = contacts.get(contactId);
      if (!contact || contact.account_id !== accountId) return notFound(res, 'Contact');
      if (sourceId) {
        const taken = contactInboxes.find((ci) => ci.inbox_id === inboxId && ci.source_id === sourceId);
        if (taken && taken.contact_id !== contactId) {
          return res.status(422).json({ description: 'source_id should be unique', errors: [{ field: 'source_id', message: 'should be unique', code: 'taken' }] });
        }
        if (taken) return res.json({ contact_inbox: taken, contact });
      } else {
        const existing = contactInboxes.find((ci) => ci.inbox_id === inboxId && ci.contact_id === contactId);
        if (existing) return res.json({ contact_inbox: existing, contact });
      }
      return res.json({ contact_inbox: addContactInbox(contactId, inboxId, sourceId, hmac ?? false), contact });
    }
    const ci = contactInboxes.find((x) => x.inbox_id === inboxId && x.source_id === sourceId);
    const contact = ci ? contacts.get(ci.contact_id) : undefined;
    if (!ci || !contact || contact.account_id !== accountId) return notFound(res, 'Contact inbox');
    res.json({ contact_inbox: ci, contact });
  });

  app.get('/internal/accounts/:a/contacts/:id', (req, res) => {
    const c = contacts.get(Number(req.params['id']));
    if (!c || c.account_id !== Number(req.params['a'])) return notFound(res, 'Contact');
    res.json(c);
  });

  app.get('/internal/inboxes/:inbox/contact_inboxes/:source', (req, res) => {
    const ci = contactInboxes.find((x) => x.inbox_id === Number(req.params['inbox']) && x.source_id === req.params['source']);
    const contact = ci ? contacts.get(ci.contact_id) : undefined;
    if (!ci || !contact) return notFound(res, 'Contact inbox');
    res.json({ contact_inbox: ci, contact });
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    addContact,
    addContactInInbox(accountId, inboxId, fields = {}) {
      const { source_id: sourceId, hmac_verified: hmac, ...rest } = fields;
      const contact = addContact(accountId, rest);
      return { contact, contactInbox: addContactInbox(contact.id, inboxId, sourceId, hmac ?? false) };
    },
    contacts,
    contactInboxes,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
