export { docsRouter } from './routes';
