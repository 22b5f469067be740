# ledger-recon as a container image: the nightly job as a non-root user, the mirror and the
# reports on a volume (LEDGER_RECON_HOME). docs/install.md says how to build and run it;
# test/cli/install.test.ts runs the build stage's steps and the runtime stage's user and
# volume without a Docker daemon.
#
#   docker build -t ledger-recon .
#   docker run --rm -v ledger-recon:/var/lib/ledger-recon --env-file /etc/ledger-recon.env ledger-recon run

# Build: compile the TypeScript, pack it as the registry would ship it, install the package
# (better-sqlite3 compiles here, with python3, make and g++). The dependencies are a layer of
# their own, made from the lock file alone, so a change to the sources reuses it; only what the
# package is built from is copied, never the checkout whole (no settings file, key or mirror).
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md ./
COPY src ./src
COPY drizzle ./drizzle
COPY docs ./docs
COPY scripts ./scripts
RUN npm run build
RUN sh scripts/install-prefix.sh /opt/ledger-recon

# Run: the installed package alone, no compiler, no sources.
FROM node:20-bookworm-slim
COPY --from=build /opt/ledger-recon /opt/ledger-recon
RUN useradd --system --uid 10001 --user-group --home-dir /var/lib/ledger-recon --shell /usr/sbin/nologin recon \
 && install -d -o recon -g recon -m 0700 /var/lib/ledger-recon
ENV PATH=/opt/ledger-recon/bin:$PATH \
    LEDGER_RECON_HOME=/var/lib/ledger-recon \
    NODE_ENV=production
VOLUME /var/lib/ledger-recon
USER recon
WORKDIR /var/lib/ledger-recon
ENTRYPOINT ["ledger-recon"]
CMD ["run"]
