import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import zlib from 'node:zlib';
import { createHttpFetcher, isTransientFetchError, staticLookup, buildUserAgent, type Fetcher, type HttpFetcherOptions } from '../../src/fetch/index.ts';
import { startServer, closedPort, type Route, type TestServer } from './server.ts';

const MiB = 1024 * 1024;
const UA = buildUserAgent('https://example.test/about-the-crawler');
const lookup = staticLookup({ 'a.example.test': '127.0.0.1', 'b.example.test': '127.0.0.1' });
/**
 * Patient limits for the tests that are not about a timeout: on a loaded machine (#14) a server in this
 * process can take seconds to answer. The timeout tests make their own fetcher with a short limit.
 */
const timeouts = { connectTimeoutMs: 30_000, headersTimeoutMs: 30_000, totalTimeoutMs: 60_000 };

/** 1 GiB of zeros as 64 gzip members of 16 MiB each: about 1 MB on the wire. */
const gzipBomb = (() => {
  const member = zlib.gzipSync(Buffer.alloc(16 * MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: 64 }, () => member));
})();

let server: TestServer;
let fetcher: Fetcher;

/** A fetcher of its own with `extra` over the patient limits, closed after `use`. */
async function withFetcher<T>(extra: Partial<HttpFetcherOptions>, use: (f: Fetcher) => Promise<T>): Promise<T> {
  const f = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup, ...timeouts, ...extra });
  try {
    return await use(f);
  } finally {
    await f.close();
  }
}

/** /r/N redirects N times before reaching the document. */
function redirectChain(): Record<string, Route> {
  const routes: Record<string, Route> = {};
  for (let n = 1; n <= 10; n++) {
    routes[`/r/${n}`] = (_req, res) => {
      res.writeHead(302, { location: n === 1 ? '/doc.ttl' : `/r/${n - 1}` });
      res.end();
    };
  }
  return routes;
}

beforeAll(async () => {
  server = await startServer({
    ...redirectChain(),
    '/doc.ttl': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8', 'x-first': '1', 'X-Second': 'two' });
      res.end('<a> <b> <c> .\n');
    },
    '/resource': (_req, res) => {
      res.writeHead(303, { location: 'doc.ttl' });
      res.end();
    },
    '/dir/sub/rel': (_req, res) => {
      res.writeHead(302, { location: '../../doc.ttl' });
      res.end('moved');
    },
    '/loop1': (_req, res) => {
      res.writeHead(301, { location: '/loop2' });
      res.end();
    },
    '/loop2': (_req, res) => {
      res.writeHead(307, { location: '/loop1' });
      res.end();
    },
    '/to-other-host': (_req, res) => {
      res.writeHead(308, { location: server.url('/doc.ttl', 'b.example.test') });
      res.end();
    },
    '/to-private-10': (_req, res) => {
      res.writeHead(302, { location: 'http://internal.example.test/secret' });
      res.end();
    },
    '/to-loopback-2': (_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.2:${server.port}/doc.ttl` });
      res.end();
    },
    '/to-mapped': (_req, res) => {
      res.writeHead(302, { location: `http://[::ffff:127.0.0.3]:${server.port}/doc.ttl` });
      res.end();
    },
    '/to-ftp': (_req, res) => {
      res.writeHead(302, { location: 'ftp://example.test/file' });
      res.end();
    },
    '/huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/n-triples', 'content-length': String(11 * MiB) });
      const chunk = Buffer.alloc(MiB, 0x61);
      for (let i = 0; i < 11; i++) res.write(chunk);
      res.end();
    },
    '/bomb': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'gzip' });
      res.end(gzipBomb);
    },
    '/gzip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync('<s> <p> "gzipped" .\n'));
    },
    '/cut-gzip': (_req, res) => {
      const gz = zlib.gzipSync(`<s> <p> "${'x'.repeat(10_000)}" .\n`);
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'gzip' });
      res.end(gz.subarray(0, gz.length - 12));
    },
    '/br': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'br' });
      res.end(zlib.brotliCompressSync('<s> <p> "brotli" .\n'));
    },
    '/raw-deflate': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'deflate' });
      res.end(zlib.deflateRawSync('<s> <p> "raw deflate" .\n'));
    },
    '/broken-gzip': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-encoding': 'gzip' });
      res.end(Buffer.from('this is not gzip at all'));
    },
    '/reset-mid-body': (req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle', 'content-length': '100000' });
      res.write(Buffer.alloc(1000, 0x20), () => req.socket.resetAndDestroy());
    },
    '/slow-headers': (_req, res) => {
      const timer = setTimeout(() => res.end('late'), 5000);
      res.on('close', () => clearTimeout(timer));
    },
    '/trickle': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle' });
      const timer = setInterval(() => res.write('# still here\n'), 50);
      res.on('close', () => clearInterval(timer));
    },
    '/etag': (req, res) => {
      if (req.headers['if-none-match'] === '"v1"' || req.headers['if-modified-since'] === 'Tue, 01 Jul 2025 10:00:00 GMT') {
        res.writeHead(304, { etag: '"v1"' });
        res.end();
        return;
      }
      res.writeHead(200, { etag: '"v1"', 'last-modified': 'Tue, 01 Jul 2025 10:00:00 GMT', 'content-type': 'text/turtle' });
      res.end('<s> <p> <o> .\n');
    },
    '/busy': (_req, res) => {
      res.writeHead(503, { 'retry-after': '120', 'content-type': 'text/plain' });
      res.end('come back later');
    },
    '/too-many': (_req, res) => {
      res.writeHead(429, { 'retry-after': 'Wed, 21 Oct 2065 07:28:00 GMT' });
      res.end();
    },
    '/continue': (_req, res) => {
      // Unasked for (the request has no Expect): RFC 9110 §15.2 says a client must read past it.
      res.writeContinue();
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('HTTP/1.1 100 Continue\r\n\r\na body that starts like one'), 20);
    },
    '/utf8-location': (_req, res) => {
      res.writeHead(302, { location: Buffer.from('/caf\u00e9.ttl', 'utf8').toString('latin1') });
      res.end();
    },
    '/caf%C3%A9.ttl': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/turtle' });
      res.end('<s> <p> "café" .\n');
    },
  });
  fetcher = createHttpFetcher({ userAgent: UA, allowPrivate: true, lookup, ...timeouts });
});

afterAll(async () => {
  await fetcher?.close();
  await server?.close();
});

describe('http fetcher: normal responses', () => {
  it('fetches a document with its headers in order, media type and charset, RDF-preferring Accept and our User-Agent', async () => {
    const { response, error } = await fetcher.fetch(server.url('/doc.ttl', 'a.example.test'));
    expect(error).toBeUndefined();
    expect(response!.status).toBe(200);
    expect(response!.statusText).toBe('OK');
    expect(response!.body.toString()).toBe('<a> <b> <c> .\n');
    expect(response!.mediaType).toBe('text/turtle');
    expect(response!.charset).toBe('utf-8');
    expect(response!.hops).toEqual([]);
    expect(response!.remoteAddress).toBe('127.0.0.1');
    const names = response!.headers.map(([n]) => n);
    expect(names.slice(0, 3)).toEqual(['content-type', 'x-first', 'X-Second']);
    const sent = server.lastHeaders.get('/doc.ttl')!;
    expect(sent['user-agent']).toBe(UA);
    expect(sent['user-agent']).toMatch(/^datamonitor\/\d+\.\d+\.\d+ \(\+https:\/\/example\.test\/about-the-crawler\)$/);
    expect(sent.accept).toMatch(/^text\/turtle/);
    expect(sent.accept).toContain('application/ld+json');
    expect(sent.accept).toContain('text/html;q=0.4');
    expect(response!.requestHeaders).toContainEqual(['user-agent', UA]);
    expect(response!.requestHeaders).toContainEqual(['host', `a.example.test:${server.port}`]);
  });

  it('decodes gzip, br and raw deflate, keeping the transferred bytes in rawBody', async () => {
    const gz = await fetcher.fetch(server.url('/gzip'));
    expect(gz.response!.body.toString()).toBe('<s> <p> "gzipped" .\n');
    expect(zlib.gunzipSync(gz.response!.rawBody).toString()).toBe('<s> <p> "gzipped" .\n');
    const br = await fetcher.fetch(server.url('/br'));
    expect(br.response!.body.toString()).toBe('<s> <p> "brotli" .\n');
    const deflate = await fetcher.fetch(server.url('/raw-deflate'));
    expect(deflate.response!.body.toString()).toBe('<s> <p> "raw deflate" .\n');
  });

  it('reads past an unsolicited 100 Continue, on a new connection and a reused one, and keeps a body that looks like one', async () => {
    for (let i = 0; i < 3; i++) {
      const { response, error } = await fetcher.fetch(server.url('/continue'));
      expect(error).toBeUndefined();
      expect(response!.status).toBe(200);
      expect(response!.body.toString()).toBe('HTTP/1.1 100 Continue\r\n\r\na body that starts like one');
    }
  });

  it('conditional GET: a matching ETag or Last-Modified gives a 304 marked notModified', async () => {
    const first = await fetcher.fetch(server.url('/etag'));
    expect(first.response!.notModified).toBe(false);
    const byEtag = await fetcher.fetch(server.url('/etag'), { etag: '"v1"' });
    expect(byEtag.response!.status).toBe(304);
    expect(byEtag.response!.notModified).toBe(true);
    expect(server.lastHeaders.get('/etag')!['if-none-match']).toBe('"v1"');
    const byDate = await fetcher.fetch(server.url('/etag'), { lastModified: 'Tue, 01 Jul 2025 10:00:00 GMT' });
    expect(byDate.response!.notModified).toBe(true);
  });

  it('returns Retry-After of a 503 (seconds) and a 429 (HTTP-date) as retryAfter, with the response', async () => {
    const before = Date.now();
    const busy = await fetcher.fetch(server.url('/busy'));
    expect(busy.response!.status).toBe(503);
    expect(busy.retryAfter!.getTime()).toBeGreaterThanOrEqual(before + 120_000);
    expect(busy.retryAfter!.getTime()).toBeLessThan(before + 130_000);
    const many = await fetcher.fetch(server.url('/too-many'));
    expect(many.response!.status).toBe(429);
    expect(many.retryAfter!.toISOString()).toBe('2065-10-21T07:28:00.000Z');
    expect(busy.retryAfterMs).toBe(120_000); // the wait asked for, as asked: capping it is the crawl's policy
  });
});

describe('http fetcher: redirects', () => {
  it('records a 303 as see-other: resource IRI and describing document, relative Location resolved', async () => {
    const { response } = await fetcher.fetch(server.url('/resource'));
    expect(response!.status).toBe(200);
    expect(response!.finalUrl).toBe(server.url('/doc.ttl'));
    expect(response!.hops).toEqual([{ url: server.url('/resource'), status: 303, target: server.url('/doc.ttl') }]);
    expect(response!.seeOther).toEqual({ resource: server.url('/resource'), document: server.url('/doc.ttl') });
  });

  it('resolves a relative Location with dot segments and records no see-other for a 302', async () => {
    const { response } = await fetcher.fetch(server.url('/dir/sub/rel'));
    expect(response!.finalUrl).toBe(server.url('/doc.ttl'));
    expect(response!.hops[0]).toEqual({ url: server.url('/dir/sub/rel'), status: 302, target: server.url('/doc.ttl') });
    expect(response!.seeOther).toBeUndefined();
  });

  it('follows 5 redirects but reports 6 as too-many-redirects', async () => {
    const five = await fetcher.fetch(server.url('/r/5'));
    expect(five.error).toBeUndefined();
    expect(five.response!.hops.map((h) => h.status)).toEqual([302, 302, 302, 302, 302]);
    const six = await fetcher.fetch(server.url('/r/6'));
    expect(six.response).toBeUndefined();
    expect(six.error!.code).toBe('too-many-redirects');
  });

  it('reports a redirect loop', async () => {
    const { error } = await fetcher.fetch(server.url('/loop1'));
    expect(error!.code).toBe('redirect-loop');
    expect(error!.message).toContain('/loop2');
  });

  it('follows a redirect to another host name', async () => {
    const { response } = await fetcher.fetch(server.url('/to-other-host', 'a.example.test'));
    expect(response!.finalUrl).toBe(server.url('/doc.ttl', 'b.example.test'));
    expect(response!.hops[0].status).toBe(308);
  });

  it('percent-encodes the bytes of a raw UTF-8 Location as they are, as browsers and curl do', async () => {
    const { response } = await fetcher.fetch(server.url('/utf8-location'));
    expect(response!.finalUrl).toBe(server.url('/caf%C3%A9.ttl'));
    expect(response!.body.toString()).toContain('café');
    // The hop records where it led, as followed, not the header's bytes read as latin1.
    expect(response!.hops[0]!.target).toBe(server.url('/caf%C3%A9.ttl'));
  });

  it('refuses a redirect to a non-HTTP scheme as bad-url', async () => {
    const { error } = await fetcher.fetch(server.url('/to-ftp'));
    expect(error!.code).toBe('bad-url');
  });
});

describe('http fetcher: bad input is reported, never thrown', () => {
  it('DNS failure of a name not in the --resolve map', async () => {
    const { error } = await fetcher.fetch('http://nowhere.example.test/x.ttl');
    expect(error!.code).toBe('dns');
    expect(error!.message).toContain('nowhere.example.test');
  });

  it('a resolver with no answer for now (EAI_AGAIN) is a temporary DNS failure, retried; a name that does not exist is not', async () => {
    const failing = (code: string) => async () => {
      throw Object.assign(new Error(`getaddrinfo ${code} data.example.test`), { code });
    };
    const again = await withFetcher({ lookup: failing('EAI_AGAIN') }, (f) => f.fetch('http://data.example.test/x.ttl'));
    expect(again.error).toMatchObject({ code: 'dns', temporary: true });
    expect(again.error!.message).toMatch(/did not resolve for now/);
    expect(isTransientFetchError(again.error!)).toBe(true);
    const gone = await withFetcher({ lookup: failing('ENOTFOUND') }, (f) => f.fetch('http://data.example.test/x.ttl'));
    expect(gone.error!.code).toBe('dns');
    expect(gone.error!.temporary).toBeUndefined();
    expect(isTransientFetchError(gone.error!)).toBe(false);
  });

  it('connection refused', async () => {
    const port = await closedPort();
    const { error } = await fetcher.fetch(`http://127.0.0.1:${port}/`);
    expect(error!.code).toBe('connect');
    expect(error!.message).toMatch(/refused/);
  });

  it('connection reset in the middle of the body', async () => {
    const { error, response } = await fetcher.fetch(server.url('/reset-mid-body'));
    expect(response).toBeUndefined();
    expect(error).toMatchObject({ code: 'connect', network: 'reset' });
  });

  it('headers that come too late: timeout', async () => {
    const { error } = await withFetcher({ headersTimeoutMs: 400 }, (f) => f.fetch(server.url('/slow-headers')));
    expect(error).toMatchObject({ code: 'timeout', phase: 'headers' });
    expect(error!.message).toMatch(/headers/);
  });

  it('a body that trickles forever hits the total timeout', async () => {
    const { error } = await withFetcher({ totalTimeoutMs: 1500 }, (f) => f.fetch(server.url('/trickle')));
    expect(error).toMatchObject({ code: 'timeout', phase: 'total' });
    expect(error!.message).toMatch(/total/);
  });

  it('an 11 MiB body is cut at the 10 MiB default and marked truncated', async () => {
    const { response, error } = await fetcher.fetch(server.url('/huge'));
    expect(error).toBeUndefined();
    expect(response!.truncated).toBe(true);
    expect(response!.rawBody.length).toBe(10 * MiB);
    expect(response!.body.length).toBe(10 * MiB);
  });

  it('a gzip bomb (1 GiB of zeros) inflates only up to maxInflatedBytes and is marked truncated', async () => {
    const { response, error } = await withFetcher({ maxInflatedBytes: 4 * MiB }, (f) => f.fetch(server.url('/bomb')));
    expect(error).toBeUndefined();
    expect(response!.truncated).toBe(true);
    expect(response!.rawBody.length).toBe(gzipBomb.length);
    expect(response!.body.length).toBe(4 * MiB);
  });

  it('a gzip body cut at --max-body keeps what it decodes and is no decode error; one that arrives whole but cut short is', async () => {
    const cutHere = await withFetcher({ maxBodyBytes: 1024 }, (f) => f.fetch(server.url('/bomb')));
    expect(cutHere.error).toBeUndefined();
    expect(cutHere.response!.truncated).toBe(true);
    expect(cutHere.response!.body.length).toBeGreaterThan(0);
    const cutThere = await fetcher.fetch(server.url('/cut-gzip'));
    expect(cutThere.error).toMatchObject({ code: 'decode', message: expect.stringMatching(/gzip: the compressed body stops before its end/) });
    expect(cutThere.response!.body.toString()).toMatch(/^<s> <p> "/);
  });

  it('a body that is not what its Content-Encoding says: decode error, raw bytes kept', async () => {
    const { response, error } = await fetcher.fetch(server.url('/broken-gzip'));
    expect(error!.code).toBe('decode');
    expect(response!.rawBody.toString()).toBe('this is not gzip at all');
  });

  it('invalid URLs and unsupported schemes: bad-url', async () => {
    expect((await fetcher.fetch('http://exa mple.org/')).error!.code).toBe('bad-url');
    expect((await fetcher.fetch('not a url')).error!.code).toBe('bad-url');
    expect((await fetcher.fetch('mailto:someone@example.org')).error!.code).toBe('bad-url');
  });

  it('a caller abort is reported as aborted', async () => {
    const controller = new AbortController();
    const pending = fetcher.fetch(server.url('/slow-headers'), undefined, controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect((await pending).error!.code).toBe('aborted');
  });
});

describe('http fetcher: address safety', () => {
  it('refuses 127.0.0.1 by default, by IP literal and by name, without sending a request', async () => {
    const strict = createHttpFetcher({ userAgent: UA, lookup, ...timeouts });
    try {
      const before = server.hits.get('/doc.ttl?strict') ?? 0;
      const literal = await strict.fetch(server.url('/doc.ttl?strict'));
      expect(literal.error!.code).toBe('blocked-address');
      const named = await strict.fetch(server.url('/doc.ttl?strict', 'a.example.test'));
      expect(named.error!.code).toBe('blocked-address');
      expect(named.error!.message).toContain('127.0.0.1');
      expect(server.hits.get('/doc.ttl?strict') ?? 0).toBe(before);
    } finally {
      await strict.close();
    }
  });

  it('allows 127.0.0.1 with allowPrivate', async () => {
    const { response } = await fetcher.fetch(server.url('/doc.ttl'));
    expect(response!.status).toBe(200);
  });

  it('refuses a redirect from an allowed host to private targets (name, loopback literal, IPv4-mapped IPv6)', async () => {
    // 127.0.0.1 is allowed as an exception so the first hop works; every other private address stays refused.
    const strict = createHttpFetcher({
      userAgent: UA,
      ...timeouts,
      allowAddresses: ['127.0.0.1'],
      lookup: staticLookup({ 'a.example.test': '127.0.0.1', 'internal.example.test': '10.1.2.3' }),
    });
    try {
      const ok = await strict.fetch(server.url('/doc.ttl', 'a.example.test'));
      expect(ok.response!.status).toBe(200);
      for (const path of ['/to-private-10', '/to-loopback-2', '/to-mapped']) {
        const { error, response } = await strict.fetch(server.url(path, 'a.example.test'));
        expect(response, path).toBeUndefined();
        expect(error!.code, path).toBe('blocked-address');
      }
    } finally {
      await strict.close();
    }
  });
});
