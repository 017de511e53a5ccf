# Porchlight's server image: the element built in a build stage, only what runs in the final one.
#
#   docker build -t porchlight .
#   docker run -d --name porchlight -p 8787:8787 -v porchlight-data:/data porchlight
#   docker logs porchlight        # the owner's first API token, printed once on the first start
#
# NODE_IMAGE is any image of the official node:*-bookworm-slim shape (node and npm on the PATH, a `node` user with
# uid 1000). CI substitutes one it makes from Debian's archive and the npm registry alone (.ci/container).
# Supported Node lines: 22, 24 and 26 (Node 20 is refused: better-sqlite3 13 crashes on it).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV NPM_CONFIG_UPDATE_NOTIFIER=false
WORKDIR /app
# The dependencies first, so that a change of source alone reuses this layer. better-sqlite3 ships prebuilt binaries
# for linux x64 and arm64 in its package and has no install script ("gypfile": false: npm runs no node-gyp for it).
# The lock's install scripts are esbuild's (it checks its platform binary), @scarf/scarf's (swagger-ui-dist's
# install telemetry, which calls scarf.sh) and two of dev-only packages, sharp's (it compiles when its prebuilt
# binary is missing) and rs-module-lexer's: --ignore-scripts skips them all, then only esbuild's (allowed in
# package.json) runs. Nothing is compiled; nothing comes from anywhere but the npm registry.
COPY package.json package-lock.json ./
# Behind a TLS-inspecting proxy, hand the build that proxy's CA bundle as a secret (mounted for this step only,
# never stored in a layer): docker build --secret id=npm_ca,src=/path/to/ca-bundle.crt .
RUN --mount=type=secret,id=npm_ca \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi \
 && npm ci --ignore-scripts --no-audit --no-fund --loglevel=warn \
 && npm rebuild esbuild --no-audit --no-fund --loglevel=warn
COPY . .
# The element and the dashboard (dist/embed, dist/dashboard) and the documentation (dist/docs, served at /docs/),
# which the server serves, then production dependencies only, without the prebuilt binaries of other operating
# systems.
RUN node bin/build-element.mjs \
 && node bin/build-docs.mjs \
 && npm prune --omit=dev --no-audit --no-fund --loglevel=warn \
 && rm -rf node_modules/better-sqlite3/prebuilds/darwin-* node_modules/better-sqlite3/prebuilds/win32-* \
           node_modules/better-sqlite3/deps node_modules/better-sqlite3/src

FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="Porchlight" \
      org.opencontainers.image.description="Open-source site monitoring with status pages" \
      org.opencontainers.image.licenses="MIT"
# The shutdown deadline is 8 s, under `docker stop`'s default grace of 10 s: a stop that overruns it still exits
# 1 (a forced stop the supervisor can see) rather than being killed with SIGKILL (137). Raising it needs a longer
# grace to match (`docker stop -t`, compose's stop_grace_period, 15s in compose.yaml).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    PORCHLIGHT_DATA_DIR=/data \
    PORCHLIGHT_SHUTDOWN_TIMEOUT_SECONDS=8
WORKDIR /app
# iputils' ping for icmp:// sites, as Debian installs it: with the cap_net_raw file capability (not setuid). It runs
# where the container keeps NET_RAW (Docker's default); where the runtime withholds it (`--cap-drop ALL`, Podman's
# defaults) the kernel refuses to run it and icmp:// sites read "not checked" instead of down: add NET_RAW back
# (`--cap-add NET_RAW`) to check them.
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends iputils-ping \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb /var/log/apt /var/log/dpkg.log
# Only what runs: the server's sources (run through tsx), the pages' and the element's sources that the server
# renders with, the built element, the production dependencies. No tests, benchmarks or build tools. Owned by
# root, so the server cannot change its own code.
COPY --from=build /app/package.json /app/package-lock.json /app/tsconfig.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/bin ./bin
COPY --from=build /app/server ./server
COPY --from=build /app/site ./site
COPY --from=build /app/components ./components
COPY --from=build /app/dist/embed ./dist/embed
COPY --from=build /app/dist/dashboard ./dist/dashboard
COPY --from=build /app/dist/docs ./dist/docs
# The data folder (SQLite database, RDAP bootstrap, mail written to files) is the only place it writes; like the
# server's own, only its owner may read it. A new named volume takes its owner and mode.
RUN install -d -o node -g node -m 0700 /data
USER node
VOLUME /data
EXPOSE 8787
STOPSIGNAL SIGTERM
# node itself (slim images have no curl); /readyz answers 200 only when the store answers and the engine runs.
# A `worker` (docker run porchlight worker --region ...) serves no HTTP: the check reads the container's process 1
# command line (/proc/1/cmdline: node, or docker's --init before it) and passes when one of its arguments is
# `worker`: nothing to probe, its process running is its health.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "if(require('fs').readFileSync('/proc/1/cmdline','utf8').split(String.fromCharCode(0)).includes('worker'))process.exit(0);fetch('http://127.0.0.1:'+(process.env.PORT||8787)+'/readyz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# node is process 1 and handles SIGTERM itself: in-flight requests (a worker: running checks) finish, the store
# closes, exit code 0.
ENTRYPOINT ["node", "bin/porchlight.js"]
CMD ["serve"]
