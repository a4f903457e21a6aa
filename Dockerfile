# One image for all six services (the command picks the service). Multi-stage: build with
# dev dependencies, ship only production dependencies and compiled JS, run as non-root.
FROM node:20-bookworm-slim AS build
RUN npm install -g pnpm@10.34.8
WORKDIR /app
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc tsconfig.base.json tsconfig.build.json ./
COPY packages ./packages
COPY services ./services
COPY tests/package.json ./tests/package.json
COPY scripts ./scripts
RUN pnpm install --frozen-lockfile
RUN pnpm run build
RUN rm -rf node_modules packages/*/node_modules services/*/node_modules tests/node_modules \
 && CI=true pnpm install --frozen-lockfile --prod

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
# V8's young generation capped at 8 MB a semi-space (it grows to 16 under load): docs/deploy.md
ENV NODE_OPTIONS=--max-semi-space-size=8
# glibc's malloc gives blocks of 4 MiB and more back to the system when freed (its threshold
# otherwise rises with the first such free, and scrypt's 16 MB blocks stay resident): docs/deploy.md
ENV MALLOC_MMAP_THRESHOLD_=4194304
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "services/gateway/dist/main.js"]
