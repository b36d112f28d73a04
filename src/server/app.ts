import path from 'node:path';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { openStore } from '../store/index.ts';
import type { MetadataStore } from '../store/types.ts';
import { UserError } from '../util/errors.ts';
import type { ServerContext } from './context.ts';
import { behindWarning, IndexCatchingUpError, VersionIndex } from '../versions/version-index.ts';
import { registerSparqlRoutes } from './sparql-routes.ts';
import { registerSelfDescription } from './self-description.ts';
import { registerCors } from './cors.ts';
import { registerMementoRoutes } from './memento-routes.ts';
import { registerFragmentRoutes } from './fragments-routes.ts';
import { registerCdxRoute } from './cdx-route.ts';
import { registerApiRoutes } from './api-routes.ts';
import { registerArchiveRoutes } from './archive-routes.ts';
import { registerDashboardRoutes } from './dashboard.ts';
import { writableDir } from '../util/disk.ts';
import { QueryEngine, QueryLimitError, type EngineOptions } from '../query/engine/index.ts';
import { defaultLog, type Logger } from '../util/log.ts';
import { registerLdesRoutes } from './ldes-routes.ts';
import { registerCompression } from './compression.ts';
import { registerFederationRoutes } from './federation-routes.ts';
import { ArchiveReadError } from '../archive/warc-files.ts';
import { INDEX_WAIT_MS, checkPublicUrl, listenUrl } from './context.ts';
import { securityHeaders } from './security-headers.ts';
import { requestTimeoutOptions } from './request-timeout.ts';

export interface ServerOptions {
  dataDir: string;
  /** A postgres:// URL for the metadata store; default `<dataDir>/meta.sqlite`. */
  db?: string;
  /** Use this open store (the caller keeps ownership) instead of opening one. */
  store?: MetadataStore;
  /** Bearer token for writes; without one, writes are refused with 403. */
  token?: string;
  /** JSON from `datamonitor lab recrawl --json`, charted on the dashboard. */
  labFile?: string;
  /**
   * Request log lines: a pino logger (the CLI passes the one --log-level/--log-file configured), or true
   * for fastify's own on stdout. Default: the process default (src/util/log.ts), silent unless configured.
   */
  logger?: boolean | Logger;
  /**
   * Absolute base URL of every link the server writes (`serve --public-url`), e.g. https://archive.example.org
   * behind a proxy; default the address it listens on. The Host header is never used.
   */
  publicUrl?: string;
  /** SPARQL limits and the query pool (docs/server.md#limits); each defaults to DEFAULT_ENGINE's. */
  query?: Partial<EngineOptions>;
  /** Use this query engine (the caller keeps ownership) instead of making one from `query`. */
  engine?: QueryEngine;
  /** Time a client has to send a whole request (`serve --request-timeout`); default DEFAULT_REQUEST_TIMEOUT_MS. */
  requestTimeoutMs?: number;
  /** How long a request waits for the index to catch up before a 503 saying how long it has left; default INDEX_WAIT_MS. */
  indexWaitMs?: number;
  /** Members per page of the LDES's fragments; default LDES_PAGE_SIZE (src/server/ldes.ts). */
  ldesPageSize?: number;
}

/**
 * The archive's web front as a fastify instance (not listening: `listen` it, or `inject` requests in tests):
 * SPARQL protocol, Memento, Triple Pattern Fragments, CDXJ, the dashboard and the token-guarded write API.
 */
export async function buildServer(o: ServerOptions): Promise<FastifyInstance> {
  const dataDir = path.resolve(o.dataDir);
  // Without a token every write is refused anyway, and a data directory this process cannot write can only
  // be read: then the store is opened read-only, so that serving writes nothing (a read-only archive works).
  const readonly = !o.token || (!o.db && !writableDir(dataDir));
  const store = o.store ?? (await openStore(dataDir, o.db, { readonly }));
  if (!o.store) await store.init();
  const index = VersionIndex.open(dataDir, store, o.db);
  // Until the server listens (and in `inject` tests without --public-url) links are written for localhost.
  let base = o.publicUrl !== undefined ? checkPublicUrl(o.publicUrl) : 'http://localhost';
  const engine = o.engine ?? new QueryEngine(o.query);
  const ctx: ServerContext = { dataDir, store, index, engine, token: o.token || undefined, labFile: o.labFile, publicUrl: () => base, indexWaitMs: o.indexWaitMs ?? INDEX_WAIT_MS, ldesPageSize: o.ldesPageSize };
  // Wayback-style routes carry a whole URL in the path, `//` included: no slash merging, long URLs allowed.
  const log = o.logger === undefined ? defaultLog() : o.logger;
  const app = Fastify({
    ...(typeof log === 'boolean' ? { logger: log } : { loggerInstance: log as FastifyBaseLogger }),
    ...requestTimeoutOptions(o.requestTimeoutMs),
    routerOptions: { maxParamLength: 8192, ignoreDuplicateSlashes: false },
  });
  app.setErrorHandler((err: Error, _req, reply) => {
    if (err instanceof QueryLimitError) {
      if (err.retryAfter !== undefined) void reply.header('retry-after', String(err.retryAfter));
      return reply.code(err.httpStatus).type('text/plain').send(err.message + '\n');
    }
    // The client went away and its query was stopped: nobody is left to answer.
    if (err.name === 'AbortError') return reply.code(499).type('text/plain').send('the query was cancelled\n');
    if (err instanceof IndexCatchingUpError) return reply.code(503).header('retry-after', String(err.retryAfter)).type('text/plain').send(err.message + '\n');
    if (err instanceof UserError) return reply.code(400).type('text/plain').send(err.message + '\n');
    if (err instanceof ArchiveReadError) {
      // The client learns what is wrong and what to run; the operator also gets the path as the store wrote it,
      // on stderr when the request log is off (a refused path is worth knowing about either way).
      if ((app.log as Logger).isLevelEnabled('error')) app.log.error({ fault: err.fault, file: err.file, url: _req.url }, err.message);
      else process.stderr.write(`datamonitor serve: ${err.fault}: warc_file ${JSON.stringify(err.file)} (GET ${_req.url}): ${err.message}\n`);
      return reply.code(500).type('text/plain').send(`cannot replay this capture: ${err.message}\n`);
    }
    const status = (err as { statusCode?: number }).statusCode;
    if (status && status >= 400 && status < 500) return reply.code(status).type('text/plain').send(err.message + '\n');
    app.log.error(err);
    // The message may name files of this machine: it stays in the server log.
    return reply.code(500).type('text/plain').send('internal error: the server log says what failed\n');
  });
  registerCors(app);
  await registerCompression(app);
  app.addHook('onSend', securityHeaders);
  if (o.publicUrl === undefined) {
    app.addHook('onListen', async () => {
      const a = app.server.address();
      if (a && typeof a === 'object') base = listenUrl(a.address, a.port);
    });
  }
  registerSparqlRoutes(app, ctx);
  registerSelfDescription(app, ctx);
  registerMementoRoutes(app, ctx);
  registerFragmentRoutes(app, ctx);
  registerCdxRoute(app, ctx);
  registerApiRoutes(app, ctx);
  registerArchiveRoutes(app, ctx);
  registerDashboardRoutes(app, ctx);
  registerFederationRoutes(app, ctx);
  registerLdesRoutes(app, ctx);
  // Catch the version index up as soon as the server is ready, not on the first SPARQL request: on a
  // large archive built without it that first request would otherwise wait for the whole index.
  app.addHook('onReady', async () => {
    void index.catchUp().then((r) => r.behind && app.log.warn(`version index: ${behindWarning(index.source, r.behind)}`))
      .catch((e: Error) => app.log.error(`version index: ${e.message}`));
  });
  app.addHook('onClose', async () => {
    if (!o.engine) await engine.close();
    await index.close();
    if (!o.store) await store.close();
  });
  return app;
}

/** Builds the server and listens; 127.0.0.1 unless told otherwise. Returns the instance and its URL. */
export async function startServer(o: ServerOptions & { port?: number; host?: string }): Promise<{ app: FastifyInstance; url: string }> {
  const app = await buildServer(o);
  const host = o.host ?? '127.0.0.1';
  await app.listen({ port: o.port ?? 8080, host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : o.port;
  return { app, url: listenUrl(host, port ?? 8080) };
}
