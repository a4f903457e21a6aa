import { Router, type Request, type Response } from 'express';
import { accountIdOf, idParam, NotFoundError, parseBody, parseQuery, requireAccount, requireRole, type ServiceDeps } from '@parley/shared';
import type { AutomationConfig } from '../config';
import * as repo from './repository';
import { ruleSchemas, runsQuery } from './schemas';
import { cloneRule, createRule, deleteRule, ruleJson, runJson, updateRule } from './service';

const RUNS_PER_PAGE = 25;

/** `/api/v1/accounts/:account_id/automation_rules`: administrators only, as Chatwoot's policy. */
export function rulesRouter(deps: ServiceDeps<AutomationConfig>): Router {
  const { pool } = deps;
  const schemas = ruleSchemas(deps.config.WEBHOOK_ALLOW_PRIVATE);
  const router = Router({ mergeParams: true });
  router.use(requireAccount, requireRole('administrator'));

  router.get('/', async (req, res) => {
    const rows = await repo.listRules(pool, accountIdOf(req));
    res.json({ payload: rows.map(ruleJson) });
  });

  // SPEC op 2: create answers `{payload: [rule]}` (Chatwoot answers the bare rule).
  router.post('/', async (req, res) => {
    const input = parseBody(schemas.create, req.body);
    const rule = await createRule(pool, req.ctx, accountIdOf(req), input);
    res.status(200).json({ payload: [rule] });
  });

  router.get('/:id', async (req, res) => {
    const row = await repo.findRule(pool, accountIdOf(req), idParam(req, 'id', 'Automation rule'));
    if (!row) throw new NotFoundError('Automation rule', 'id');
    res.json({ payload: ruleJson(row) });
  });

  const update = async (req: Request, res: Response) => {
    const id = idParam(req, 'id', 'Automation rule');
    const input = parseBody(schemas.update, req.body);
    res.json({ payload: await updateRule(pool, req.ctx, accountIdOf(req), id, input) });
  };
  router.patch('/:id', update);
  router.put('/:id', update);

  router.delete('/:id', async (req, res) => {
    await deleteRule(pool, req.ctx, accountIdOf(req), idParam(req, 'id', 'Automation rule'));
    res.json({});
  });

  router.post('/:id/clone', async (req, res) => {
    res.json({ payload: await cloneRule(pool, req.ctx, accountIdOf(req), idParam(req, 'id', 'Automation rule')) });
  });

  router.get('/:id/runs', async (req, res) => {
    const accountId = accountIdOf(req);
    const id = idParam(req, 'id', 'Automation rule');
    const { page } = parseQuery(runsQuery, { page: req.query['page'] });
    if (!(await repo.findRule(pool, accountId, id))) throw new NotFoundError('Automation rule', 'id');
    const { rows, count } = await repo.listRuns(pool, accountId, id, RUNS_PER_PAGE, (page - 1) * RUNS_PER_PAGE);
    res.json({ meta: { count, current_page: page, per_page: RUNS_PER_PAGE }, payload: rows.map(runJson) });
  });

  return router;
}
