import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseLinkFormat, rels } from '../../src/util/link-format.ts';
import { aggregateTimeMap, timeMapToJson, timeMapToLinkFormat } from '../../src/federation/timemap-aggregator.ts';
import { buildFederationServer } from '../../src/server/federator.ts';

const URL_X = 'http://data.example/x?q=1';

/**
 * A tiny archive on 127.0.0.1: answers /archive/timemap/link/<url> with `serve(base, url)`, 404
 * when that is undefined; records the paths asked for. `base` is passed in because a TimeMap names
 * its own archive, known only once the server listens.
 */
async function fakeArchive(serve: (base: string, url: string) => string | undefined): Promise<{ base: string; server: http.Server; asked: string[] }> {
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    const m = /^\/archive\/timemap\/link\/(.+)$/.exec(req.url ?? '');
    const body = m ? serve(base, m[1]) : undefined;
    if (body === undefined) res.writeHead(404).end('not archived');
    else res.writeHead(200, { 'content-type': 'application/link-format' }).end(body);
  });
  const base = `${await listen(server)}/archive`;
  return { base, server, asked };
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function timemap(base: string, mementos: [string, string][]): string {
  return [
    `<${URL_X}>; rel="original"`,
    `<${base}/timemap/link/${URL_X}>; rel="self"; type="application/link-format"`,
    ...mementos.map(([id, date], i) => `<${base}/${id}/${URL_X}>; rel="${i === 0 ? 'first ' : ''}memento"; datetime="${date}"`),
  ].join(',\n');
}

let a: Awaited<ReturnType<typeof fakeArchive>>;
let b: Awaited<ReturnType<typeof fakeArchive>>;
let slow: http.Server;
let slowBase: string;
let deadBase: string;
const servers: http.Server[] = [];

beforeAll(async () => {
  a = await fakeArchive((base, url) =>
    url === URL_X
      ? timemap(base, [['20200101000000', 'Wed, 01 Jan 2020 00:00:00 GMT'], ['20220301120000', 'Tue, 01 Mar 2022 12:00:00 GMT'], ['20240101000000', 'Mon, 01 Jan 2024 00:00:00 GMT']])
      : undefined,
  );
  b = await fakeArchive((_base, url) =>
    url === URL_X
      ? // Relative memento URIs, a broken datetime and a stray token: the good entries still count.
        `<${URL_X}>; rel="original", <v/2021/x>; rel="memento"; datetime="Fri, 01 Jan 2021 00:00:00 GMT", ` +
        `<v/bad/x>; rel="memento"; datetime="yesterday", garbage here, <v/2023/x>; rel="last memento"; datetime="Sun, 01 Jan 2023 00:00:00 GMT"`
      : undefined,
  );
  slow = http.createServer(() => { /* never answers */ });
  slowBase = await listen(slow);
  const dead = http.createServer();
  deadBase = await listen(dead);
  await new Promise((r) => dead.close(r));
  servers.push(a.server, b.server, slow);
});

afterAll(async () => {
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

describe('link-format reader', () => {
  it('reads commas inside quotes, several rels, escapes, and skips a malformed entry with a diagnostic', () => {
    const { links, errors } = parseLinkFormat(
      '<http://a/1>; rel="first memento"; datetime="Wed, 01 Jan 2020 00:00:00 GMT",\n  <http://a/2>;REL=memento;title="say \\"hi\\", ok";datetime="Thu, 02 Jan 2020 00:00:00 GMT" , oops, <http://a/3>; rel=original',
    );
    expect(links).toEqual([
      { uri: 'http://a/1', params: { rel: 'first memento', datetime: 'Wed, 01 Jan 2020 00:00:00 GMT' } },
      { uri: 'http://a/2', params: { rel: 'memento', title: 'say "hi", ok', datetime: 'Thu, 02 Jan 2020 00:00:00 GMT' } },
      { uri: 'http://a/3', params: { rel: 'original' } },
    ]);
    expect(rels(links[0])).toEqual(['first', 'memento']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/expected '<'/);
    expect(parseLinkFormat('<http://a/1>; rel="unterminated').errors[0]).toMatch(/unterminated/);
  });
});

describe('TimeMap aggregator', () => {
  it('merges the mementos of every archive sorted by datetime, asking each at <base>/timemap/link/<url>', async () => {
    const tm = await aggregateTimeMap(URL_X, [a.base, b.base]);
    expect(a.asked).toContain(`/archive/timemap/link/${URL_X}`);
    expect(tm.original).toBe(URL_X);
    expect(tm.mementos.map((m) => [new Date(m.datetime).toISOString().slice(0, 10), m.archive])).toEqual([
      ['2020-01-01', a.base], ['2021-01-01', b.base], ['2022-03-01', a.base], ['2023-01-01', b.base], ['2024-01-01', a.base],
    ]);
    // Relative URIs resolve against the archive's base.
    expect(tm.mementos[1].uri).toBe(`${b.base}/v/2021/x`);
    expect(tm.archives).toEqual([
      { archive: a.base, status: 'ok', mementos: 3 },
      { archive: b.base, status: 'ok', mementos: 2 },
    ]);
    expect(tm.warnings.join('\n')).toMatch(/v\/bad\/x.*no valid datetime/);
    expect(tm.warnings.join('\n')).toMatch(/expected '<'/);
  });

  it('answers from the live archives when one is down and one never answers, and says so', async () => {
    const tm = await aggregateTimeMap(URL_X, [deadBase, a.base, slowBase], { timeoutMs: 3000 }); // the live one answers within it on a loaded machine too
    expect(tm.mementos).toHaveLength(3);
    expect(tm.archives.map((x) => x.status)).toEqual(['failed', 'ok', 'failed']);
    expect(tm.archives[0].error).toMatch(/ECONNREFUSED/);
    expect(tm.archives[2].error).toMatch(/no answer within 3000 ms/);
    expect(tm.warnings.filter((w) => w.includes('left out'))).toHaveLength(2);
  });

  it('an archive without the URL (404) is not an error', async () => {
    const tm = await aggregateTimeMap('http://elsewhere.example/', [a.base, b.base]);
    expect(tm.mementos).toEqual([]);
    expect(tm.archives.map((x) => x.status)).toEqual(['none', 'none']);
    expect(tm.warnings).toEqual([]);
  });

  it('writes RFC 7089 link format and JSON that read back to the same mementos', async () => {
    const tm = await aggregateTimeMap(URL_X, [a.base, b.base]);
    const { links, errors } = parseLinkFormat(timeMapToLinkFormat(tm, 'http://agg.example/timemap/link/' + URL_X));
    expect(errors).toEqual([]);
    expect(links[0]).toEqual({ uri: URL_X, params: { rel: 'original' } });
    expect(links[1].params).toMatchObject({ rel: 'self', from: 'Wed, 01 Jan 2020 00:00:00 GMT', until: 'Mon, 01 Jan 2024 00:00:00 GMT' });
    const mementos = links.slice(2);
    expect(mementos.map((l) => l.uri)).toEqual(tm.mementos.map((m) => m.uri));
    expect(mementos.map((l) => Date.parse(l.params.datetime))).toEqual(tm.mementos.map((m) => m.datetime));
    expect(rels(mementos[0])).toEqual(['first', 'memento']);
    expect(rels(mementos[4])).toEqual(['last', 'memento']);
    const json = timeMapToJson(tm);
    expect(json.mementos.first?.datetime).toBe('2020-01-01T00:00:00.000Z');
    expect(json.mementos.last?.uri).toBe(tm.mementos[4].uri);
    expect(json.mementos.list).toHaveLength(5);
  });

  it('serves the merged TimeMap over HTTP in both formats, with 404, 502 and 400 where they belong', async () => {
    const { app: agg } = await buildFederationServer({ archives: [a.base, b.base, slowBase], timeoutMs: 3000 });
    const base = await agg.listen({ port: 0, host: '127.0.0.1' });
    const { app: fine } = await buildFederationServer({ archives: [a.base, b.base] });
    try {
      const link = await fetch(`${base}/timemap/link/${URL_X}`);
      expect(link.status).toBe(200);
      expect(link.headers.get('content-type')).toBe('application/link-format');
      expect(link.headers.get('datamonitor-warning')).toMatch(/no answer within 3000 ms/);
      expect(link.headers.get('datamonitor-unanswered')).toBe(slowBase);
      const links = parseLinkFormat(await link.text()).links;
      expect(links.filter((l) => rels(l).includes('memento'))).toHaveLength(5);
      expect(links[1]).toMatchObject({ uri: `${base}/timemap/link/${URL_X}`, params: { rel: 'self' } });
      expect(links[2]).toEqual({ uri: `${base}/timegate/${URL_X}`, params: { rel: 'timegate' } });

      const json = await fetch(`${base}/timemap/json/${URL_X}`);
      const body = (await json.json()) as ReturnType<typeof timeMapToJson>;
      expect(body.original_uri).toBe(URL_X);
      expect(body.mementos.list.map((m) => m.datetime.slice(0, 4))).toEqual(['2020', '2021', '2022', '2023', '2024']);
      expect(body.archives.map((x) => x.status)).toEqual(['ok', 'ok', 'failed']);

      expect((await fetch(`${base}/timemap/link/http://elsewhere.example/`)).status).toBe(502); // the slow one might hold it
      const fineBase = await fine.listen({ port: 0, host: '127.0.0.1' });
      expect((await fetch(`${fineBase}/timemap/link/http://elsewhere.example/`)).status).toBe(404);
      expect((await fetch(`${base}/timemap/link/not-a-url`)).status).toBe(400);
      expect((await fetch(`${base}/other`)).status).toBe(404);
    } finally {
      await agg.close();
      await fine.close();
    }
  });
});
