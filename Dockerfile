# Two stages: build the one executable (npm run build → dist/ffos), then run it alone on a small glibc
# base. README.md ("Running in production") says how each line was checked.

# --- build: node + npm ci installs exactly package-lock.json, Bun included (the `bun` npm package) ---
FROM node:22-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No fallback: a lockfile that does not match package.json fails the build here.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY drizzle ./drizzle
COPY scripts/build.ts ./scripts/build.ts
COPY src ./src
RUN npm run build && ./dist/ffos help

# --- run: the executable, setpriv (util-linux, already in the base) and nothing else ---
FROM debian:bookworm-slim
RUN groupadd --system --gid 10001 ffos \
 && useradd --system --uid 10001 --gid ffos --home-dir /app --no-create-home --shell /usr/sbin/nologin ffos \
 && mkdir -p /app/data \
 && chown ffos:ffos /app/data
COPY --from=build /src/dist/ffos /usr/local/bin/ffos
COPY deploy/entrypoint.sh /usr/local/bin/entrypoint.sh
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_URL=file:/app/data/app.db \
    UPLOAD_DIR=/app/data/uploads \
    EXPORT_DIR=/app/data/exports
VOLUME ["/app/data"]
EXPOSE 3000
# `ffos health` asks the running server's GET /api/health on 127.0.0.1:$PORT (3 s at most; no file or
# database opened): exit 0 healthy, 1 otherwise. 30 s grace for a first start on a slow volume (it loads
# no data: the regional database is a prepared file copied out of the executable, README.md "Regional data").
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 CMD ["ffos", "health"]
# The entrypoint starts as root only to hand a root-owned mounted volume to the ffos user, then runs
# the command as ffos (deploy/entrypoint.sh).
ENTRYPOINT ["/usr/local/bin/entrypoint.sh"]
CMD ["ffos"]
