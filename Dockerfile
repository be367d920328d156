# One image for every Tranche process (web, worker, node agent, migrations); compose picks the command.
FROM node:20-bookworm-slim
ENV NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1 NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps ./apps
COPY packages ./packages
COPY prisma ./prisma
COPY scripts ./scripts
COPY prisma.config.ts turbo.json tsconfig.base.json ./
RUN npm ci --include=dev --no-audit --no-fund && npx turbo run build --output-logs=errors-only
EXPOSE 3000
CMD ["node", "node_modules/next/dist/bin/next", "start", "apps/web", "-H", "0.0.0.0", "-p", "3000"]
