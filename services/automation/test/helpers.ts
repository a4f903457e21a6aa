import type { RunningService } from '@parley/shared';
import { asCaller, startTestService, type CtxInput, type TestEnv } from '@parley/testkit';
import { automationConfigSchema, automationService, type AutomationConfig } from '../src';

export interface Api {
  (method: string, path: string, body?: unknown, caller?: CtxInput): Promise<{ status: number; body: any; headers: Headers }>;
}

/** Boots the automation service against the file's env; tests reach local receivers, so private targets are allowed unless said otherwise. */
export function startAutomation(env: TestEnv, overrides: Record<string, unknown> = {}): Promise<RunningService<AutomationConfig>> {
  return startTestService(automationService, automationConfigSchema.parse({ ...env.config, WEBHOOK_ALLOW_PRIVATE: true, WEBHOOK_POLL_MS: 50, ...overrides }));
}

/** Calls the service as the gateway would, for an administrator of `accountId` unless `caller` says otherwise. */
export function apiFor(svc: { url: string }, accountId: number): Api {
  return async (method, path, body, caller = {}) => {
    const headers: Record<string, string> = { ...asCaller({ accountId, role: 'administrator', ...caller }), accept: 'application/json' };
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const res = await fetch(`${svc.url}/api/v1/accounts/${accountId}${path}`, { method, headers, body: payload });
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    return { status: res.status, body: parsed, headers: res.headers };
  };
}

export function expectError(res: { status: number; body: any }, status: number, field?: string): void {
  expect(res.status).toBe(status);
  expect(typeof res.body?.description).toBe('string');
  expect(Array.isArray(res.body?.errors)).toBe(true);
  if (field !== undefined) expect(res.body.errors.map((e: any) => e.field)).toContain(field);
}

export const refundRule = {
  name: 'Refunds to billing',
  description: 'Label refund requests',
  event_name: 'message_created',
  active: true,
  conditions: [{ attribute_key: 'content', filter_operator: 'contains', values: ['refund'], query_operator: null }],
  actions: [
    { action_name: 'add_label', action_params: ['billing'] },
    { action_name: 'change_priority', action_params: ['high'] },
  ],
};
