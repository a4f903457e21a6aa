import path from 'node:path';
import express, { Router } from 'express';
import { openApiJson, openApiYaml } from './document';

/** Files of swagger-ui-dist the page loads; nothing else in that package is served. */
const ASSETS = ['swagger-ui-bundle.js', 'swagger-ui.css', 'favicon-32x32.png', 'favicon-16x16.png'];

/** Everything the page needs is served from here, so /docs works offline and the CSP can say 'self'. */
const CSP = ["default-src 'self'", "img-src 'self' data:", "style-src 'self' 'unsafe-inline'", "script-src 'self'", "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'"].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Parley API</title>
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise send the document to an online validator.
const INIT = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  displayOperationId: true,
  docExpansion: 'list',
  defaultModelsExpandDepth: 0,
  filter: true,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout'
});
`;

function swaggerUiDir(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/**
 * `/openapi.json`, `/openapi.yaml` and the rendered docs at `/docs` (Swagger UI from the
 * swagger-ui-dist package, served locally). No credential: the document is public.
 */
export function docsRouter(): Router {
  const router = Router();
  router.get('/openapi.json', (_req, res) => {
    res.type('application/json').send(openApiJson());
  });
  router.get('/openapi.yaml', (_req, res) => {
    res.type('application/yaml').send(openApiYaml());
  });
  router.get('/docs', (_req, res) => {
    res.setHeader('content-security-policy', CSP);
    res.type('html').send(PAGE);
  });
  router.get('/docs/init.js', (_req, res) => {
    res.type('application/javascript').send(INIT);
  });
  const assets = express.static(swaggerUiDir(), { index: false, maxAge: '1h', fallthrough: true });
  router.use('/docs/assets', (req, res, next) => {
    if (!ASSETS.includes(req.path.replace(/^\//, ''))) return next();
    assets(req, res, next);
  });
  return router;
}
