# Small image on the official Bun base; the database and uploads live in the /app/data volume.
FROM oven/bun:1.4-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only; the bun npm package is not needed inside the Bun image.
RUN bun install --production --ignore-scripts --frozen-lockfile 2>/dev/null || bun install --production --ignore-scripts

FROM oven/bun:1.4-slim
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    DATABASE_URL=file:/app/data/app.db \
    UPLOAD_DIR=/app/data/uploads
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY drizzle ./drizzle
RUN mkdir -p /app/data && chown -R bun:bun /app/data
USER bun
VOLUME ["/app/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s CMD bun -e "fetch('http://127.0.0.1:3000/api/health').then(r => process.exit(r.ok ? 0 : 1)).catch(() => process.exit(1))"
CMD ["bun", "src/server.ts"]
