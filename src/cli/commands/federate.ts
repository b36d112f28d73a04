/** `datamonitor federate`: one Memento endpoint and one URL submission point for several archives (docs/federation.md). */
import fs from 'node:fs';
import type { Command } from 'commander';
import { UserError } from '../../util/errors.ts';
import { formatDuration, parseCount, parseDuration } from '../../util/units.ts';
import { DEFAULT_REQUEST_TIMEOUT_MS, parseRequestTimeout } from '../../server/request-timeout.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { buildFederationServer } from '../../server/federator.ts';
import { collect } from '../config.ts';
import { summaryOf } from './index.ts';

interface FederateFlags {
  archive?: string[];
  tokens?: string;
  port: string;
  host: string;
  token?: string;
  timeout: string;
  refresh: string;
  json?: boolean;
  publicUrl?: string;
  requestTimeout?: string;
}


function archiveBase(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UserError(`--archive '${text}' is not a URL: give the base URL of a datamonitor serve, e.g. --archive http://archive-a.example:8080`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UserError(`--archive '${text}' must be an http(s) URL`);
  if (u.search || u.hash) throw new UserError(`--archive '${text}': give the base URL without ?query or #fragment`);
  return u.toString().replace(/\/+$/, '');
}

/** `--tokens FILE`: one archive a line, `<base URL> <write token>`; # starts a comment. Kept off the command line, where `ps` shows it. */
function readTokens(file: string, archives: string[]): Map<string, string> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`--tokens '${file}' cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, EXIT.noInput);
  }
  const tokens = new Map<string, string>();
  text.split(/\r?\n/).forEach((line, i) => {
    const l = line.trim();
    if (!l || l.startsWith('#')) return;
    const m = /^(\S+)\s+(\S+)$/.exec(l);
    if (!m) throw new UserError(`--tokens ${file}:${i + 1}: expected '<archive base URL> <token>'`, EXIT.dataError);
    const base = archiveBase(m[1]!);
    if (!archives.includes(base)) throw new UserError(`--tokens ${file}:${i + 1}: ${base} is not one of the --archive URLs`, EXIT.dataError);
    tokens.set(base, m[2]!);
  });
  return tokens;
}

export function register(program: Command): void {
  program
    .command('federate')
    .description(summaryOf('federate'))
    .option('--archive <url>', 'base URL of an archive (datamonitor serve); repeat for each', collect)
    .option('--tokens <file>', "write tokens of the archives, one '<base URL> <token>' a line: URLs are submitted only to these")
    .option('--port <n>', 'port (0 picks a free one)', '8090')
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--token <token>', 'bearer token that allows submitting URLs (POST /api/urls); default $DATAMONITOR_TOKEN; none: submissions refused')
    .option('--timeout <duration>', 'wait at most this long for each archive', '5s')
    .option('--refresh <duration>', "read the archives' capacity and holdings again after this long", '60s')
    .option('--public-url <url>', 'absolute base URL of the links it writes (behind a proxy); default the address it listens on')
    .option('--json', 'print the address as JSON')
    .option('--request-timeout <duration>', `time a client has to send a whole request, headers and body; a slower one is answered 408 and its connection closed (default ${formatDuration(DEFAULT_REQUEST_TIMEOUT_MS)})`)
    .action(async (flags: FederateFlags) => {
      if (!flags.archive?.length) throw new UserError('federate needs at least one --archive URL (the base URL of a datamonitor serve); repeat --archive for each');
      const archives = flags.archive.map(archiveBase);
      const twice = archives.find((a, i) => archives.indexOf(a) !== i);
      if (twice) throw new UserError(`--archive ${twice} is given twice`);
      const tokens = flags.tokens ? readTokens(flags.tokens, archives) : new Map<string, string>();
      const port = flags.port === '0' ? 0 : parseCount(flags.port, '--port');
      if (port > 65535) throw new UserError(`--port ${port} is not a TCP port (0 to 65535)`);
      const timeoutMs = parseDuration(flags.timeout, '--timeout');
      const refreshMs = parseDuration(flags.refresh, '--refresh');
      if (!(timeoutMs > 0)) throw new UserError('--timeout must be positive, e.g. 5s');
      const token = flags.token ?? process.env.DATAMONITOR_TOKEN;
      const requestTimeoutMs = parseRequestTimeout(flags.requestTimeout, '--request-timeout');
      const { app } = await buildFederationServer({ archives, tokens, timeoutMs, refreshMs, token: token || undefined, publicUrl: flags.publicUrl, requestTimeoutMs });
      await app.listen({ port, host: flags.host }).catch((e: NodeJS.ErrnoException) => {
        if (e.code === 'EADDRINUSE') throw new UserError(`port ${port} on ${flags.host} is in use: choose another with --port`);
        if (e.code === 'EADDRNOTAVAIL') throw new UserError(`cannot listen on ${flags.host}: not an address of this machine`);
        throw e;
      });
      const address = app.server.address();
      const shown = flags.host.includes(':') ? `[${flags.host}]` : flags.host === '0.0.0.0' ? '127.0.0.1' : flags.host;
      const url = `http://${shown}:${typeof address === 'object' && address ? address.port : port}`;
      if (flags.json) process.stdout.write(JSON.stringify({ url, archives, submissions: Boolean(token), tokens: [...tokens.keys()] }) + '\n');
      else {
        process.stdout.write(`datamonitor federating ${archives.length} archives at ${url}/\n`);
        process.stdout.write(`  TimeMap ${url}/timemap/link/<url>   TimeGate ${url}/timegate/<url>   archives ${url}/api/federation/archives\n`);
        process.stdout.write(token ? `  submissions: POST ${url}/api/urls with the bearer token, to ${tokens.size} archives with a write token\n` : '  submissions: refused (no --token / DATAMONITOR_TOKEN)\n');
      }
      const stop = () => void app.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
}
