import { buildOpenApiDocument } from '@parley/shared';
import { operations } from '../src';

describe('contacts operations for the OpenAPI document', () => {
  it('when the document is built from them, then every operation converts without a problem', () => {
    const doc = buildOpenApiDocument([{ service: 'contacts', operations }]);
    const routes = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item as object).filter((k) => k !== 'parameters').map((m) => `${m.toUpperCase()} ${path}`));
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /api/v1/accounts/{account_id}/contacts',
        'POST /api/v1/accounts/{account_id}/contacts',
        'DELETE /api/v1/accounts/{account_id}/contacts/{id}',
        'POST /public/api/v1/inboxes/{inbox_identifier}/contacts',
        'PATCH /public/api/v1/inboxes/{inbox_identifier}/contacts/{contact_identifier}',
      ]),
    );
    expect(routes).toHaveLength(operations.length);
  });
});
