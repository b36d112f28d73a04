/** `datamonitor serve`: the archive on the web (SPARQL protocol, Memento, CDXJ, dashboard, write API). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../../util/errors.ts';
import { parseCount, parseDuration } from '../../util/units.ts';
import { archiveExists } from '../../store/index.ts';
import { startServer } from '../../server/index.ts';
import { INDEX_WAIT_MS, checkPublicUrl } from '../../server/context.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { DEFAULT_ENGINE, parseLimits } from '../../query/engine/index.ts';
import { formatBytes, formatDuration } from '../../util/units.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, parseRequestTimeout } from '../../server/request-timeout.ts';
import { summaryOf } from './index.ts';

interface ServeFlags {
  data: string;
  db?: string;
  port: string;
  host: string;
  token?: string;
  lab?: string;
  json?: boolean;
  queryTimeout?: string;
  queryMemory?: string;
  queryMaxResult?: string;
  queryMaxDepth?: string;
  queryMaxSize?: string;
  requestTimeout?: string;
  indexWait?: string;
  queryWorkers?: string;
  queryQueue?: string;
  publicUrl?: string;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description(summaryOf('serve'))
    .option('--data <dir>', 'data directory', 'data')
    .option('--db <url>', 'metadata store: postgres://… (default: SQLite in --data); the versioned index then lives in that database too')
    .option('--port <n>', 'port (0 picks a free one)', '8080')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--token <token>', 'bearer token that allows writes (POST /api/urls, /api/cycle); default $DATAMONITOR_TOKEN; none: writes refused')
    .option('--lab <file.json>', 'chart this output of `datamonitor lab recrawl --json` on the dashboard')
    .option('--public-url <url>', 'absolute URL clients reach the server at (behind a proxy: https://archive.example.org), used in every link it writes; default the address it listens on')
    .option('--json', 'print the address as JSON')
    .option('--query-timeout <duration>', `time limit of one SPARQL query (default ${formatDuration(DEFAULT_ENGINE.timeMs)})`)
    .option('--query-memory <size>', `memory limit of one SPARQL query's process, WebAssembly included (default ${formatBytes(DEFAULT_ENGINE.memoryBytes)})`)
    .option('--query-max-result <size>', `largest SPARQL result sent (default ${formatBytes(DEFAULT_ENGINE.resultBytes)})`)
    .option('--query-max-depth <n>', `deepest nesting of brackets in a SPARQL query's text; deeper is answered 400 before it runs (default ${DEFAULT_ENGINE.maxDepth})`)
    .option('--query-max-size <size>', `largest SPARQL query text; larger is answered 400 before it runs (default ${formatBytes(DEFAULT_ENGINE.queryBytes)})`)
    .option('--request-timeout <duration>', `time a client has to send a whole request, headers and body; a slower one is answered 408 and its connection closed (default ${formatDuration(DEFAULT_REQUEST_TIMEOUT_MS)})`)
    .option('--index-wait <duration>', `how long a request waits for the archive's index to catch up with the crawl log; longer is answered 503 saying how far it is, with Retry-After (default ${formatDuration(INDEX_WAIT_MS)})`)
    .option('--query-workers <n>', `SPARQL queries run at once, each in its own process (default ${DEFAULT_ENGINE.workers})`)
    .option('--query-queue <n>', `SPARQL queries that wait for a free process; more are answered 503 with Retry-After (default ${DEFAULT_ENGINE.queue})`)
    .action(async (flags: ServeFlags) => {
      const dataDir = path.resolve(flags.data);
      if (!archiveExists(dataDir, flags.db)) {
        throw new UserError(`no archive in '${dataDir}': crawl into it first (datamonitor crawl --data ${flags.data} URL), or give --data`, EXIT.noInput);
      }
      if (flags.lab && !fs.existsSync(flags.lab)) throw new UserError(`--lab '${flags.lab}' does not exist: write it with datamonitor lab recrawl --json > FILE.json`);
      const port = flags.port === '0' ? 0 : parseCount(flags.port, '--port');
      if (port > 65535) throw new UserError(`--port ${port} is not a TCP port (0 to 65535)`);
      const token = flags.token ?? process.env.DATAMONITOR_TOKEN;
      const publicUrl = flags.publicUrl === undefined ? undefined : checkPublicUrl(flags.publicUrl);
      const query = {
        ...parseLimits({ time: flags.queryTimeout, memory: flags.queryMemory, result: flags.queryMaxResult, depth: flags.queryMaxDepth, size: flags.queryMaxSize },
          { time: '--query-timeout', memory: '--query-memory', result: '--query-max-result', depth: '--query-max-depth', size: '--query-max-size' }),
        workers: flags.queryWorkers === undefined ? undefined : parseCount(flags.queryWorkers, '--query-workers'),
        queue: flags.queryQueue === undefined ? undefined : parseCount(flags.queryQueue, '--query-queue'),
      };
      if (query.workers === 0) throw new UserError('--query-workers must be at least 1');
      const requestTimeoutMs = parseRequestTimeout(flags.requestTimeout, '--request-timeout');
      const indexWaitMs = flags.indexWait === undefined ? undefined : parseDuration(flags.indexWait, '--index-wait');
      const { app, url } = await startServer({ dataDir, db: flags.db, port, host: flags.host, token, labFile: flags.lab && path.resolve(flags.lab), publicUrl, query, requestTimeoutMs, indexWaitMs }).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'EADDRINUSE') throw new UserError(`port ${port} on ${flags.host} is in use: choose another with --port`);
        if (e.code === 'EADDRNOTAVAIL') throw new UserError(`cannot listen on ${flags.host}: not an address of this machine`);
        throw e;
      });
      if (flags.json) process.stdout.write(JSON.stringify({ url, writes: Boolean(token) }) + '\n');
      else {
        process.stdout.write(`datamonitor serving ${dataDir} at ${url}/\n`);
        process.stdout.write(`  dashboard ${url}/   SPARQL ${url}/sparql   fragments ${url}/fragments   TimeMap ${url}/timemap/link/<url>   browse ${url}/replay/<yyyyMMddHHmmss>/<url>   CDXJ ${url}/cdx?url=<url>\n`);
        process.stdout.write(token ? '  writes: allowed with the bearer token\n' : '  writes: refused (no --token / DATAMONITOR_TOKEN)\n');
      }
      const stop = () => void app.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
