/**
 * `/cdx` with pywb's CDX server parameters (docs "CDXJ Server API"): filter, fl, sort=reverse|closest with
 * closest=, a negative limit (the last N), output=text. Expected answers are computed here from the plain
 * answer (index order, every field), as a client would check them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildServer, parseTimestamp, type CdxLine } from '../../src/server/index.ts';
import { buildArchive, type ArchiveFixture } from './fixture.ts';

describe('/cdx with filter, fl, sort, closest and negative limit', () => {
  let fx: ArchiveFixture;
  let app: FastifyInstance;
  const cdx = async (params: Array<[string, string]>) => app.inject({ url: '/cdx?' + new URLSearchParams(params).toString() });
  const json = async (params: Array<[string, string]>) => {
    const res = await cdx([...params, ['output', 'json']]);
    expect(res.statusCode, res.body).toBe(200);
    return res.body.trim() === '' ? [] : res.body.trim().split('\n').map((l) => JSON.parse(l) as CdxLine);
  };
  /** Every capture of the test site, in index order with every field: what the filters are checked against. */
  let all: CdxLine[];
  let host: [string, string][];

  beforeAll(async () => {
    // Captures a second apart, so that closest= can tell them apart.
    fx = await buildArchive({ spacingMs: 1100 });
    app = await buildServer({ dataDir: fx.dataDir });
    host = [['url', `${fx.origin.url}/`], ['matchType', 'host']];
    all = await json(host);
  });
  afterAll(async () => {
    await app?.close();
    await fx?.close();
  });

  it('filter=status:404 gives the 404 captures only (it was ignored: every capture came back)', async () => {
    expect(all.length).toBe(7);
    const notFound = all.filter((l) => l.status.includes('404'));
    expect(notFound.length).toBe(1);
    expect(await json([...host, ['filter', 'status:404']])).toEqual(notFound);
    expect(await json([...host, ['filter', 'statuscode:404']])).toEqual(notFound); // the Wayback name of the field
  });

  it('filters as pywb documents them: contains, =exact, ~regex from the start, ! negation, several ANDed', async () => {
    expect(await json([...host, ['filter', '=mime:text/turtle']])).toEqual(all.filter((l) => l.mime === 'text/turtle'));
    expect(await json([...host, ['filter', 'mime:turtle']])).toEqual(all.filter((l) => l.mime.includes('turtle')));
    expect(await json([...host, ['filter', '!=mime:warc/revisit']])).toEqual(all.filter((l) => l.mime !== 'warc/revisit'));
    expect(await json([...host, ['filter', '~url:.*/doc\\.ttl$']])).toEqual(all.filter((l) => l.url.endsWith('/doc.ttl')));
    // ~ anchors at the start (python's re.match): 'doc' alone does not match a URL starting http://
    expect(await json([...host, ['filter', '~url:doc']])).toEqual([]);
    expect(await json([...host, ['filter', '!~status:2']])).toEqual(all.filter((l) => !l.status.startsWith('2')));
    const both = await json([...host, ['filter', '~url:.*doc'], ['filter', '!status:304']]);
    expect(both).toEqual(all.filter((l) => l.url.includes('doc') && l.status !== '304'));
    expect(both.length).toBe(3);
  });

  it('pages through filtered captures: limit counts kept lines, the resume key continues after the last one', async () => {
    const wanted = all.filter((l) => l.mime !== 'warc/revisit');
    const first = await cdx([...host, ['filter', '!=mime:warc/revisit'], ['limit', '2'], ['output', 'json']]);
    const lines = first.body.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines).toEqual(wanted.slice(0, 2));
    const key = first.headers['x-resume-key'] as string;
    expect(key).toBeTruthy();
    const rest = await json([...host, ['filter', '!=mime:warc/revisit'], ['resumeKey', key]]);
    expect([...lines, ...rest]).toEqual(wanted);
  });

  it('fl picks fields in JSON, text and CDXJ output', async () => {
    expect(await json([...host, ['fl', 'timestamp,status']])).toEqual(all.map((l) => ({ timestamp: l.timestamp, status: l.status })));
    const text = await cdx([...host, ['fl', 'url,timestamp'], ['output', 'text']]);
    expect(text.body).toBe(all.map((l) => `${l.url} ${l.timestamp}\n`).join(''));
    const plain = await cdx([...host, ['output', 'text']]);
    expect(plain.body).toBe(all.map((l) => [l.urlkey, l.timestamp, l.url, l.mime, l.status, l.digest, l.length, l.offset, l.filename].join(' ') + '\n').join(''));
    const cdxj = await cdx([...host, ['fl', 'urlkey,timestamp,status']]);
    expect(cdxj.body).toBe(all.map((l) => `${l.urlkey} ${l.timestamp} {"status":"${l.status}"}\n`).join(''));
    const bad = await cdx([...host, ['fl', 'timestamp,colour']]);
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toMatch(/'colour' is not a CDX field; the fields are urlkey, timestamp/);
  });

  it('sort=reverse gives newest first; sort=closest orders by distance to closest=; limit=-N gives the last N', async () => {
    const doc = [['url', fx.doc]] as [string, string][];
    const forward = await json(doc);
    expect(forward.length).toBe(4);
    expect(await json([...doc, ['sort', 'reverse']])).toEqual([...forward].reverse());
    expect(await json([...doc, ['sort', 'reverse'], ['limit', '1']])).toEqual([forward[3]]);
    expect(await json([...doc, ['limit', '-1']])).toEqual([forward[3]]);
    expect(await json([...doc, ['limit', '-2']])).toEqual(forward.slice(2));
    expect(await json([...host, ['limit', '-3']])).toEqual(all.slice(-3));
    const target = forward[1]!.timestamp;
    const byDistance = [...forward].sort((a, b) => Math.abs(parseTimestamp(a.timestamp)! - parseTimestamp(target)!) - Math.abs(parseTimestamp(b.timestamp)! - parseTimestamp(target)!) || a.timestamp.localeCompare(b.timestamp));
    const closest = await json([...doc, ['sort', 'closest'], ['closest', target]]);
    expect(closest).toEqual(byDistance);
    expect(closest[0]).toEqual(forward[1]);
    expect(await json([...doc, ['closest', target]])).toEqual(byDistance); // closest= alone implies sort=closest, as in pywb
    expect(await json([...doc, ['sort', 'closest'], ['closest', target], ['limit', '1']])).toEqual([forward[1]]);
  });

  it('says what is wrong with a parameter it cannot follow', async () => {
    const cases: Array<[Array<[string, string]>, RegExp]> = [
      [[['filter', 'colour:red']], /'colour' is not a CDX field/],
      [[['filter', 'no-colon']], /is not \[!\]\[=\|~\]field:expression/],
      [[['filter', '~url:(']], /is not a regular expression/],
      [[['sort', 'sideways']], /sort 'sideways' is not one of reverse, closest/],
      [[['sort', 'closest']], /sort=closest needs closest=<timestamp>/],
      [[['sort', 'reverse'], ['resumeKey', 'abc']], /resumeKey cannot be combined with sort=reverse/],
      [[['limit', 'ten']], /limit 'ten' is not a whole number/],
      [[['output', 'xml']], /output 'xml' is not one of cdxj, json, link, text/],
    ];
    for (const [params, message] of cases) {
      const res = await cdx([...host, ...params]);
      expect(res.statusCode, JSON.stringify(params)).toBe(400);
      expect(res.body).toMatch(message);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    }
  });
});
