import { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type SecurityScheme = 'userApiKey' | 'agentBotApiKey' | 'platformAppApiKey';

export interface ResponseSpec {
  description: string;
  /** The body the route answers with; omit for an empty body. */
  schema?: z.ZodType;
  example?: unknown;
}

/**
 * One HTTP operation as integrators see it through the gateway. Each service lists its
 * operations (in `src/openapi.ts`) with the same zod schemas its routes parse requests with
 * and shape answers by; the gateway merges them into `/openapi.json`.
 */
export interface OperationSpec {
  method: HttpMethod;
  /** Public path in OpenAPI form: `/api/v1/accounts/{account_id}/conversations/{conversation_id}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Schemes any one of which opens the operation; `[]` for the public client API. */
  security: SecurityScheme[];
  /** Path parameters other than `account_id` (which every account route has). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may also come as multipart/form-data (messages with attachments, avatars). */
  multipart?: boolean;
  /** Success answers by status; error answers (Error body) are added for `errors`. */
  responses: Record<number, ResponseSpec>;
  /** Error statuses this operation can answer with (each with the Error body). */
  errors?: number[];
  requestExample?: unknown;
}

/** Identity helper so service files get type checking on their operation lists. */
export function defineOperations(ops: OperationSpec[]): OperationSpec[] {
  return ops;
}
