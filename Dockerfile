# syntax=docker/dockerfile:1
#
# feedbot's container image, in three stages:
#   build      everything installed (dev tools too), `npm run build`: the bot and the packages it
#              imports compiled to JavaScript with source maps (dist/)
#   prod-deps  `npm ci --omit=dev` of the bot and the one workspace package it imports (the feed
#              API contract); sqlite3's native module is built here
#   runtime    the official Node 22 slim image with the compiled bot and those dependencies only,
#              run as the unprivileged `node` user
#
# No container engine runs on CI: .ci/prod-steps.sh performs these same steps directly (build,
# the production install in a clean folder, a start with this CMD against the Discord emulator
# and the sandbox). Change the two together.
#
#   docker build -t feedbot .
#   docker compose up -d          # compose.yaml: the bot with its key store on a volume

ARG NODE_IMAGE=node:22-bookworm-slim

# --- build ------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# Manifests first, so the install layer is reused until a manifest or the lock changes. npm ci
# needs every workspace's package.json to install the whole tree.
COPY package.json package-lock.json ./
COPY packages/feed-api-contract/package.json packages/feed-api-contract/
COPY packages/sandbox/package.json packages/sandbox/
COPY packages/discord-emulator/package.json packages/discord-emulator/
COPY packages/playground/package.json packages/playground/
# The compiler needs no native module: no install scripts, so sqlite3 is not built for nothing.
RUN npm ci --ignore-scripts --no-audit --no-fund
# .dockerignore lets in only manifests, tsconfigs and sources.
COPY . .
RUN npm run build

# --- prod-deps --------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
# sqlite3 (under @keyv/sqlite) first tries a prebuilt binary and compiles from source when none
# can be fetched (no network to its release host, another architecture). The compilers stay in
# this stage: the runtime stage copies the finished node_modules from an identical base image,
# so the binary matches its Node and glibc, and no compiler ships in the image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/feed-api-contract/package.json packages/feed-api-contract/
# Restricted to the bot (the workspace root) and the contract: the other workspaces are absent
# and nothing of theirs is installed. No typescript, tsx, vitest or eslint (dev dependencies).
RUN npm ci --omit=dev --workspace=@feedbot/feed-api-contract --include-workspace-root --no-audit --no-fund

# --- runtime ----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
# METRICS_*: the ops listener, /healthz (the HEALTHCHECK below), /readyz and /metrics. On every
# interface of the container, so a scraper beside it can reach it; publish the port with care.
ENV NODE_ENV=production \
    METRICS_PORT=9464 \
    METRICS_HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only to the bot; only data/ is its to write. The install as prod-deps
# left it (node_modules links the contract to packages/feed-api-contract, which may hold a
# node_modules of its own), then the compiled code.
COPY --from=prod-deps /app ./
COPY --from=build /app/packages/feed-api-contract/dist ./packages/feed-api-contract/dist
COPY --from=build /app/dist ./dist
# The key store: DATABASE_URL defaults to sqlite://./data/feedbot.sqlite, i.e. /app/data. A new
# named volume takes this folder's owner, so the node user can write it.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME ["/app/data"]
USER node
EXPOSE 9464
# Liveness. Node 22 has fetch; the slim image has no curl.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.METRICS_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node itself as PID 1 (not npm): SIGTERM reaches the bot, which drains in-flight interactions
# (up to 10 s) and exits 0.
CMD ["node", "--enable-source-maps", "dist/src/index.js"]
