import { reportRoutes } from './reports/routes';
import { summaryReportRoutes } from './reports/summary-routes';
import { csvRoutes } from './reports/csv-routes';
import type { TableDeps } from './reports/table-routes';
import type { Route } from '@parley/shared';

/** Every public route of the reports service (the API document is built from this list). */
export const routes: Array<Route<TableDeps>> = [...reportRoutes, ...summaryReportRoutes, ...csvRoutes];
