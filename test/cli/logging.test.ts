/**
 * Logs a person or a log shipper can read: `--log-file` gets one JSON line per URL (as Heritrix's
 * crawl.log), failures at warn, and the server's request lines in the same format (#14).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from '../helpers.ts';
import { buildServer } from '../../src/server/app.ts';
import { configureLogging } from '../../src/util/log.ts';

let server: http.Server;
let base: string;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/turtle' }).end('<http://x/a> <http://x/p> <http://x/b> .\n<http://x/a> <http://www.w3.org/2000/01/rdf-schema#seeAlso> </missing> .\n');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const lines = (file: string) => fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));

describe('logging', () => {
  it('crawl --log-file: one JSON line per URL with its reason; a failure is a warning', async () => {
    const dir = tempDir('dm-log-');
    const file = path.join(dir, 'crawl.log');
    const r = await cli(['--log-file', file, 'crawl', `${base}/`, '--data', path.join(dir, 'data'), '--allow-private', '--delay', '0', '--no-vocabularies', '--progress', 'none']);
    expect(r.code, r.err).toBe(0);
    const fetches = lines(file).filter((l) => l.msg === 'fetch');
    const byUrl = new Map(fetches.map((l) => [l.url, l]));
    expect(byUrl.get(`${base}/`)).toMatchObject({ level: 30, status: 200, reason: 'fetched' });
    expect(byUrl.get(`${base}/missing`)).toMatchObject({ level: 40, status: 404, reason: 'http-error' });
    // Not written to stderr when a file is given: stderr keeps the summary.
    expect(r.err).not.toContain('"msg":"fetch"');
  });

  it('--log-level warn on stderr prints only the failures', async () => {
    const dir = tempDir('dm-log-');
    const r = await cli(['--log-level', 'warn', 'crawl', `${base}/`, '--data', dir, '--allow-private', '--delay', '0', '--no-vocabularies', '--progress', 'none']);
    const json = r.err.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    expect(json.filter((l) => l.url.startsWith(base)).map((l) => [l.url, l.reason])).toEqual([[`${base}/missing`, 'http-error']]);
    expect(json.every((l) => l.level >= 40)).toBe(true);
    const bad = await cli(['--log-level', 'loud', 'stats', '--data', dir]);
    expect(bad.code).toBe(64);
    expect(bad.err).toMatch(/loud.*Allowed choices are trace, debug, info/);
  });

  it('the server writes its request lines to the configured log', async () => {
    const dir = tempDir('dm-log-');
    const file = path.join(dir, 'server.log');
    const r = await cli(['crawl', `${base}/`, '--data', dir, '--allow-private', '--delay', '0', '--no-vocabularies', '--progress', 'none']);
    expect(r.code, r.err).toBe(0);
    configureLogging({ file, level: 'info' });
    const app = await buildServer({ dataDir: dir });
    try {
      const res = await app.inject({ method: 'GET', url: '/' });
      expect(res.statusCode).toBe(200);
    } finally {
      await app.close();
      configureLogging({ level: 'silent' });
    }
    const completed = lines(file).filter((l) => l.msg === 'request completed');
    expect(completed.some((l) => l.res?.statusCode === 200)).toBe(true);
  });
});
