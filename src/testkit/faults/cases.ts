/**
 * The fault kit's catalogue: one hostile server per case of issue #12 item 8, each on 127.0.0.1,
 * each saying which URLs a user would look up in the crawl log and which reasons are right for them.
 * test/faults/ runs them at small sizes, `npm run faults` at the sizes of the issue.
 */
import { once } from 'node:events';
import type net from 'node:net';
import zlib from 'node:zlib';
import { startServer, type TestServer } from '../server.ts';
import type { FaultCase, FaultFixture, FaultSize } from './run.ts';
import { answer, drip, startCanary, startConnectProxy, startRawHttp, startTlsGarbage, total, type FaultServer } from './raw.ts';

const TTL = 'text/turtle';
const MiB = 1024 * 1024;

const closeAll = (...servers: Array<{ close(): Promise<void> } | undefined>) => async () => void (await Promise.all(servers.map((s) => s?.close())));

/** robots.txt: none (404), so the case is about the page, not the robots.txt. */
function noRobots(path: string, socket: net.Socket): boolean {
  if (path !== '/robots.txt') return false;
  answer(socket, 404, 'no robots.txt');
  return true;
}

const hitsOf = (s: TestServer, pred: (path: string) => boolean = (p) => p !== '/robots.txt') => () => s.requests.filter((r) => pred(r.path)).length;

/** A server whose /robots.txt is a 404 and whose other paths are `route`'s. */
async function site(route: (path: string, res: import('node:http').ServerResponse, url: URL, server: TestServer) => unknown): Promise<TestServer> {
  let self: TestServer;
  self = await startServer((_req, res, url) => {
    if (url.pathname === '/robots.txt') return res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
    return route(url.pathname + url.search, res, url, self);
  });
  return self;
}

const turtle = (res: import('node:http').ServerResponse, body: string | Buffer, status = 200, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': TTL, ...headers }).end(body);

/** A response that fails the first `n` times, then answers with a small Turtle document. */
function failingThen(n: number, fail: (res: import('node:http').ServerResponse, i: number) => void) {
  let tries = 0;
  return (_path: string, res: import('node:http').ServerResponse, url: URL) => {
    if (tries++ < n) return fail(res, tries);
    turtle(res, `<${url.href}> <http://example.org/p> "recovered after ${n}" .\n`);
  };
}

/** Compressed zeros, `bytes` of them inflated, made chunk by chunk so the fixture never holds them. */
async function zeros(kind: 'gzip' | 'br', bytes: number): Promise<Buffer> {
  const z = kind === 'gzip' ? zlib.createGzip({ level: 9 }) : zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } });
  const out: Buffer[] = [];
  z.on('data', (d: Buffer) => out.push(d));
  const chunk = Buffer.alloc(MiB);
  for (let i = 0; i < bytes / MiB; i++) if (!z.write(chunk)) await once(z, 'drain');
  z.end();
  await once(z, 'end');
  return Buffer.concat(out);
}

async function bombCase(kind: 'gzip' | 'br', size: FaultSize): Promise<FaultFixture> {
  const body = await zeros(kind, size.bombBytes);
  const s = await site((_p, res) => res.writeHead(200, { 'content-type': TTL, 'content-encoding': kind, 'content-length': String(body.length) }).end(body));
  return { seeds: [`${s.url}/bomb.ttl`], watch: [{ url: `${s.url}/bomb.ttl`, reasons: ['too-large', 'decode-error'] }], close: closeAll(s) };
}

/** A robots.txt answered by `robots`; the page /doc.ttl is fine once robots.txt lets it through. */
async function robotsCase(robots: (path: string, res: import('node:http').ServerResponse) => unknown, reasons: FaultFixture['watch'][number]['reasons']): Promise<FaultFixture> {
  const s = await startServer((_req, res, url) => {
    if (url.pathname === '/robots.txt' || url.pathname.startsWith('/robots/')) return robots(url.pathname, res);
    turtle(res, `<${url.href}> <http://example.org/p> "a page behind a difficult robots.txt" .\n`);
  });
  return {
    seeds: [`${s.url}/doc.ttl`, `${s.url}/doc2.ttl`],
    watch: [{ url: `${s.url}/doc.ttl`, reasons }, { url: `${s.url}/doc2.ttl`, reasons }],
    close: closeAll(s),
  };
}

export const FAULT_CASES: FaultCase[] = [
  // ---- transport: every request has a deadline nothing can defeat
  {
    name: 'never-answers', group: 'transport',
    about: 'accepts the connection and never answers (robots.txt included)',
    async start() {
      const s = await startRawHttp(() => undefined);
      return { seeds: [`${s.url}/x`], watch: [{ url: `${s.url}/x`, reasons: ['timeout-headers', 'robots-unavailable'] }], close: s.close };
    },
  },
  {
    name: 'slow-loris-headers', group: 'transport',
    about: 'response headers at 1 byte/s, forever',
    async start() {
      const s = await startRawHttp((req, socket) => {
        if (noRobots(req.path, socket)) return;
        drip(socket, Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nX-Slow: ${'a'.repeat(100_000)}`));
      });
      return { seeds: [`${s.url}/x`], watch: [{ url: `${s.url}/x`, reasons: ['timeout-headers', 'timeout-total'] }], close: s.close };
    },
  },
  {
    name: 'slow-loris-body', group: 'transport',
    about: 'headers at once, then the body at 1 byte/s',
    async start() {
      const s = await startRawHttp((req, socket) => {
        if (noRobots(req.path, socket)) return;
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: 100000\r\n\r\n<urn:x:a> <urn:x:b> "');
        drip(socket, Buffer.from('x'.repeat(100_000)));
      });
      return { seeds: [`${s.url}/x`], watch: [{ url: `${s.url}/x`, reasons: ['timeout-body', 'timeout-total'] }], close: s.close };
    },
  },
  {
    name: 'reset-mid-body', group: 'transport',
    about: 'Content-Length 100000, 1000 bytes, then a TCP reset',
    async start() {
      const s = await startRawHttp((req, socket) => {
        if (noRobots(req.path, socket)) return;
        socket.write(`HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nContent-Length: 100000\r\n\r\n${'#'.repeat(1000)}`);
        setTimeout(() => socket.resetAndDestroy(), 50);
      });
      return { seeds: [`${s.url}/x`], watch: [{ url: `${s.url}/x`, reasons: ['connection-reset'] }], close: s.close };
    },
  },
  {
    name: 'reset-then-recovery', group: 'transport',
    about: 'resets the first connection, closes the second before answering, then answers (a flaky link or proxy)',
    async start() {
      let tries = 0;
      const s = await startRawHttp((req, socket) => {
        if (noRobots(req.path, socket)) return;
        if (++tries === 1) return socket.resetAndDestroy();
        if (tries === 2) return socket.destroy();
        answer(socket, 200, `<urn:x:doc> <http://example.org/p> "recovered after ${tries - 1} failures" .\n`, { 'Content-Type': TTL });
      });
      // Transient network failures are tried again like a 5xx (src/crawler/stages/fetch.ts): the document is had.
      return { seeds: [`${s.url}/doc.ttl`], watch: [{ url: `${s.url}/doc.ttl`, reasons: ['fetched'] }], requests: { count: () => s.hits.get('/doc.ttl') ?? 0, max: 3 }, close: s.close };
    },
  },
  {
    name: 'interim-responses', group: 'transport',
    about: 'an unsolicited 100 Continue (once, twice, in a packet of its own or with the response), a 103 Early Hints, then a 200',
    async start() {
      const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
      const interim: Record<string, string> = {
        '/continue': CONTINUE,
        '/continue-twice': `${CONTINUE}HTTP/1.1 100 Continue\r\nX-Why: because\r\n\r\n`,
        '/early-hints': 'HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n',
      };
      const doc = '<urn:x:doc> <http://example.org/p> "after an interim response" .\n';
      const s = await startRawHttp((req, socket) => {
        if (noRobots(req.path, socket)) return;
        if (req.path === '/continue-same-packet') return answer(socket, 200, doc, { 'Content-Type': TTL }, CONTINUE);
        // The interim response in a packet of its own, the final one a moment later (a server still working).
        socket.write(interim[req.path] ?? '');
        setTimeout(() => answer(socket, 200, doc, { 'Content-Type': TTL }), 20);
      });
      const urls = [...Object.keys(interim), '/continue-same-packet'].map((p) => `${s.url}${p}`);
      return {
        seeds: urls, watch: urls.map((url) => ({ url, reasons: ['fetched'] })),
        // Once each: an interim response is no failure to try again.
        requests: { count: () => total(s.hits) - (s.hits.get('/robots.txt') ?? 0), max: urls.length }, close: s.close,
      };
    },
  },
  {
    name: 'endless-body', group: 'transport',
    about: 'no Content-Length, a body that never ends',
    async start() {
      const s = await startRawHttp((req, socket) => {
        if (noRobots(req.path, socket)) return;
        socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/turtle\r\nConnection: close\r\n\r\n');
        const line = Buffer.from('<urn:x:a> <urn:x:b> "endless" .\n'.repeat(2000));
        const pump = () => {
          while (!socket.destroyed && socket.write(line));
        };
        socket.on('drain', pump);
        pump();
      });
      return { seeds: [`${s.url}/x`], watch: [{ url: `${s.url}/x`, reasons: ['too-large', 'timeout-total'] }], close: s.close };
    },
  },
  {
    name: 'tls-garbage', group: 'transport',
    about: 'an https:// origin that answers the ClientHello with junk',
    async start() {
      const s = await startTlsGarbage();
      return { seeds: [`${s.url}/x`], watch: [{ url: `${s.url}/x`, reasons: ['tls-error', 'robots-unavailable'] }], close: s.close };
    },
  },
  {
    name: 'tls-garbage-via-proxy', group: 'transport',
    about: 'the same, through an HTTP proxy\'s CONNECT tunnel (the healthy host goes through the proxy too)',
    async start() {
      const tls = await startTlsGarbage();
      const proxy = await startConnectProxy();
      return { seeds: [`${tls.url}/x`], watch: [{ url: `${tls.url}/x`, reasons: ['tls-error', 'robots-unavailable'] }], crawl: { proxy: proxy.url }, close: closeAll(proxy, tls) };
    },
  },
  {
    name: 'tls-silent-via-proxy', group: 'transport',
    about: 'a CONNECT tunnel to a server that never answers the ClientHello',
    async start() {
      const tls = await startTlsGarbage(null);
      const proxy = await startConnectProxy();
      return { seeds: [`${tls.url}/x`], watch: [{ url: `${tls.url}/x`, reasons: ['timeout-tls', 'tls-error', 'robots-unavailable'] }], crawl: { proxy: proxy.url }, close: closeAll(proxy, tls) };
    },
  },

  // ---- waits: parsed defensively, capped
  {
    name: '5xx-burst-then-recovery', group: 'waits',
    about: '503, 500, then 200',
    async start() {
      const s = await site(failingThen(2, (res, i) => res.writeHead(i === 1 ? 503 : 500, { 'content-type': 'text/plain' }).end('busy')));
      return { seeds: [`${s.url}/doc.ttl`], watch: [{ url: `${s.url}/doc.ttl`, reasons: ['fetched'] }], close: closeAll(s) };
    },
  },
  {
    name: 'retry-after-seconds', group: 'waits',
    about: '429 with Retry-After: 1, then 200',
    async start() {
      const s = await site(failingThen(1, (res) => res.writeHead(429, { 'retry-after': '1' }).end()));
      return { seeds: [`${s.url}/doc.ttl`], watch: [{ url: `${s.url}/doc.ttl`, reasons: ['fetched'] }], close: closeAll(s) };
    },
  },
  {
    name: 'retry-after-http-date', group: 'waits',
    about: '503 with Retry-After as an HTTP date 2 s ahead, then 200',
    async start() {
      const s = await site(failingThen(1, (res) => res.writeHead(503, { 'retry-after': new Date(Date.now() + 2_000).toUTCString() }).end()));
      return { seeds: [`${s.url}/doc.ttl`], watch: [{ url: `${s.url}/doc.ttl`, reasons: ['fetched'] }], close: closeAll(s) };
    },
  },
  {
    name: 'retry-after-ten-years', group: 'waits',
    about: '429 with Retry-After: 315360000, always',
    async start() {
      const s = await site((_p, res) => res.writeHead(429, { 'retry-after': '315360000' }).end());
      return { seeds: [`${s.url}/doc.ttl`], watch: [{ url: `${s.url}/doc.ttl`, reasons: ['wait-too-long', 'rate-limited'] }], close: closeAll(s) };
    },
  },
  {
    name: 'retry-after-huge-number', group: 'waits',
    about: '503 with Retry-After: 99999999999999999999 (an Invalid Date that stalled every host)',
    async start() {
      const s = await site((_p, res) => res.writeHead(503, { 'retry-after': '99999999999999999999' }).end());
      return { seeds: [`${s.url}/doc.ttl`], watch: [{ url: `${s.url}/doc.ttl`, reasons: ['wait-too-long', 'rate-limited'] }], close: closeAll(s) };
    },
  },
  {
    name: 'retry-after-garbage', group: 'waits',
    about: '503 with Retry-After: soon, -5, 1.5',
    async start() {
      const values: Record<string, string> = { '/soon': 'soon, maybe', '/negative': '-5', '/fraction': '1.5' };
      const s = await site((p, res) => res.writeHead(503, { 'retry-after': values[p] ?? '' }).end());
      const urls = Object.keys(values).map((p) => `${s.url}${p}`);
      return { seeds: urls, watch: urls.map((url) => ({ url, reasons: ['rate-limited', 'server-error', 'wait-too-long', 'failing-origin'] })), close: closeAll(s) };
    },
  },

  // ---- redirects
  {
    name: 'redirect-loop', group: 'redirects',
    about: '/a → /b → /a',
    async start() {
      const s = await site((p, res) => res.writeHead(302, { location: p === '/a' ? '/b' : '/a' }).end());
      return {
        seeds: [`${s.url}/a`], watch: [{ url: `${s.url}/a`, reasons: ['redirect-loop', 'too-many-redirects', 'redirected'] }],
        requests: { count: hitsOf(s), max: 8 }, close: closeAll(s),
      };
    },
  },
  {
    name: 'redirect-chain-50', group: 'redirects',
    about: '/hop/0 → /hop/1 → … → /hop/50 (a document)',
    async start() {
      const s = await site((p, res) => {
        const n = Number(/^\/hop\/(\d+)$/.exec(p)?.[1] ?? 50);
        if (n < 50) return res.writeHead(301, { location: `/hop/${n + 1}` }).end();
        turtle(res, '<urn:x:end> <urn:x:p> "end of the chain" .\n');
      });
      return {
        seeds: [`${s.url}/hop/0`], watch: [{ url: `${s.url}/hop/0`, reasons: ['too-many-redirects', 'redirected'] }],
        // The default limit is 5 hops (issue #12): a handful of requests, never the 51.
        requests: { count: hitsOf(s), max: 12 }, close: closeAll(s),
      };
    },
  },

  // ---- addresses: refused without --allow-private, whatever the form, also after a redirect
  {
    name: 'private-address-forms', group: 'addresses',
    about: 'redirects to 127.0.0.2 as decimal, octal, IPv4-mapped IPv6, a --resolve name; to 0.0.0.0 and [::1]; crawled without --allow-private',
    async start() {
      // The fixture itself is on 127.0.0.1, allowed by exception (allowAddresses); every target is another
      // loopback address with a canary on it that counts what reaches it: it must stay 0.
      const c2 = (await startCanary('127.0.0.2'))!;
      const c1 = (await startCanary('127.0.0.1'))!;
      const c6 = await startCanary('::1');
      const targets: Record<string, string> = {
        '/to/loopback': `http://127.0.0.2:${c2.port}/loopback`,
        '/to/decimal': `http://2130706434:${c2.port}/decimal`,
        '/to/octal': `http://0177.0.0.2:${c2.port}/octal`,
        '/to/mapped': `http://[::ffff:127.0.0.2]:${c2.port}/mapped`,
        '/to/name': `http://internal.test:${c2.port}/name`,
        '/to/zero': `http://0.0.0.0:${c1.port}/zero`,
        ...(c6 ? { '/to/ipv6': `http://[::1]:${c6.port}/ipv6` } : {}),
      };
      const s = await site((p, res) => (targets[p] ? res.writeHead(302, { location: targets[p] }).end() : res.writeHead(404).end()));
      const direct = `http://internal.test:${c2.port}/direct`;
      const watch = Object.entries(targets).map(([p, t]) => ({ url: `${s.url}${p}`, also: [new URL(t).href], reasons: ['refused-address' as const] }));
      watch.push({ url: direct, also: [], reasons: ['refused-address'] });
      return {
        seeds: [...watch.map((w) => w.url)],
        watch,
        forbidden: () => total(c1.hits) + total(c2.hits) + (c6 ? total(c6.hits) : 0),
        // Each redirecting URL must have been asked for: a fixture refused outright proves nothing.
        unreached: () => Object.keys(targets).filter((p) => !s.requests.some((r) => r.path === p)).map((p) => `${s.url}${p}`),
        crawl: { allowPrivate: false, allowAddresses: ['127.0.0.1'], resolve: { 'internal.test': '127.0.0.2' } },
        note: c6 ? undefined : 'no IPv6 loopback here: [::1] not tried',
        close: closeAll(s, c1, c2, c6),
      };
    },
  },

  // ---- content: bombs, lies, hostile parsers' input
  { name: 'gzip-bomb', group: 'content', about: 'Content-Encoding: gzip of zeros (64 MiB in tests, 1 GiB in npm run faults)', start: (size) => bombCase('gzip', size) },
  { name: 'brotli-bomb', group: 'content', about: 'Content-Encoding: br of zeros (64 MiB in tests, 1 GiB in npm run faults)', start: (size) => bombCase('br', size) },
  {
    name: 'content-type-lies', group: 'content',
    about: 'binary as text/turtle, Turtle as image/png, HTML as application/ld+json',
    async start() {
      const png = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff))]);
      const s = await site((p, res) => {
        if (p === '/binary.ttl') return turtle(res, png);
        if (p === '/turtle.png') return res.writeHead(200, { 'content-type': 'image/png' }).end('<urn:x:a> <urn:x:b> "turtle in disguise" .\n');
        res.writeHead(200, { 'content-type': 'application/ld+json' }).end('<!doctype html><html><body><p>not JSON</p></body></html>');
      });
      return {
        seeds: ['/binary.ttl', '/turtle.png', '/html.jsonld'].map((p) => `${s.url}${p}`),
        watch: [
          { url: `${s.url}/binary.ttl`, reasons: ['parse-error'] },
          { url: `${s.url}/turtle.png`, reasons: ['fetched', 'filtered-mime'] },
          // The extractors sniff what the bytes are: an HTML page is read as HTML whatever its Content-Type says.
          { url: `${s.url}/html.jsonld`, reasons: ['parse-error', 'fetched'] },
        ],
        close: closeAll(s),
      };
    },
  },
  {
    name: 'rdfxml-billion-laughs', group: 'content',
    about: 'RDF/XML with nested entity definitions (billion laughs)',
    async start() {
      let dtd = '<!ENTITY lol "lol">\n';
      for (let i = 1; i <= 9; i++) dtd += `<!ENTITY lol${i} "${`&lol${i === 1 ? '' : i - 1};`.repeat(10)}">\n`;
      const body = `<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n${dtd}]>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/"><rdf:Description rdf:about="urn:x:laughs"><ex:p>&lol9;</ex:p></rdf:Description></rdf:RDF>\n`;
      const s = await site((_p, res) => res.writeHead(200, { 'content-type': 'application/rdf+xml' }).end(body));
      return { seeds: [`${s.url}/laughs.rdf`], watch: [{ url: `${s.url}/laughs.rdf`, reasons: ['parse-error'] }], close: closeAll(s) };
    },
  },
  {
    name: 'rdfxml-external-entity', group: 'content',
    about: 'RDF/XML whose DTD names an external entity on a 127.0.0.1 server (it must never be requested)',
    async start() {
      const canary = (await startCanary('127.0.0.1'))!;
      const body = `<?xml version="1.0"?>\n<!DOCTYPE rdf:RDF [\n<!ENTITY secret SYSTEM "${canary.url}/secret">\n<!ENTITY % remote SYSTEM "${canary.url}/dtd">\n%remote;\n]>\n<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://example.org/"><rdf:Description rdf:about="urn:x:xxe"><ex:p>&secret;</ex:p></rdf:Description></rdf:RDF>\n`;
      const s = await site((_p, res) => res.writeHead(200, { 'content-type': 'application/rdf+xml' }).end(body));
      return { seeds: [`${s.url}/xxe.rdf`], watch: [{ url: `${s.url}/xxe.rdf`, reasons: ['parse-error', 'fetched'] }], forbidden: () => total(canary.hits), close: closeAll(s, canary) };
    },
  },
  {
    name: 'jsonld-deep-nesting', group: 'content',
    about: 'JSON-LD nested 100,000 levels deep',
    async start(size) {
      const body = '{"@id":"urn:x:deep","http://example.org/p":'.repeat(size.nesting) + '{}' + '}'.repeat(size.nesting);
      const s = await site((_p, res) => res.writeHead(200, { 'content-type': 'application/ld+json' }).end(body));
      // Valid JSON-LD, only deep: parsed (on an analysis thread, without a stack overflow) is the best outcome;
      // refused as too deep or over budget, or cut at --max-body (tests), is an honest one.
      return { seeds: [`${s.url}/deep.jsonld`], watch: [{ url: `${s.url}/deep.jsonld`, reasons: ['fetched', 'parse-error', 'over-budget', 'too-large'] }], close: closeAll(s) };
    },
  },
  {
    name: 'jsonld-context-loop', group: 'content',
    about: 'a JSON-LD document whose remote context A imports B, which imports A',
    async start() {
      const s = await site((p, res, url) => {
        const ctx = (name: string) => `${url.origin}/ctx/${name}`;
        const json = (v: unknown) => res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify(v));
        if (p === '/ctx/a') return json({ '@context': [ctx('b'), { name: 'http://schema.org/name' }] });
        if (p === '/ctx/b') return json({ '@context': ctx('a') });
        json({ '@context': ctx('a'), '@id': 'urn:x:loop', name: 'loop' });
      });
      return {
        seeds: [`${s.url}/doc.jsonld`], watch: [{ url: `${s.url}/doc.jsonld`, reasons: ['parse-error', 'fetched'] }],
        requests: { count: hitsOf(s, (p) => p.startsWith('/ctx/')), max: 6 }, close: closeAll(s),
      };
    },
  },
  {
    name: 'jsonld-huge-context', group: 'content',
    about: 'a JSON-LD document whose remote context is 100 MB (8 MiB in tests)',
    async start(size) {
      const head = Buffer.from('{"@context":{');
      const entry = Buffer.from('"t":"http://example.org/t",'.repeat(1000));
      const big = Buffer.concat([head, ...Array.from({ length: Math.ceil(size.contextBytes / entry.length) }, () => entry), Buffer.from('"name":"http://schema.org/name"}}')]);
      const s = await site((p, res, url) => {
        if (p === '/ctx/huge') return res.writeHead(200, { 'content-type': 'application/ld+json' }).end(big);
        res.writeHead(200, { 'content-type': 'application/ld+json' }).end(JSON.stringify({ '@context': `${url.origin}/ctx/huge`, '@id': 'urn:x:huge', name: 'x' }));
      });
      return { seeds: [`${s.url}/doc.jsonld`], watch: [{ url: `${s.url}/doc.jsonld`, reasons: ['too-large', 'parse-error', 'fetched'] }], close: closeAll(s) };
    },
  },
  {
    name: 'blank-node-graph', group: 'content',
    about: 'Turtle of blank nodes in 4-cycles (costly to canonicalise; 20,000 in npm run faults)',
    async start(size) {
      let body = '@prefix ex: <http://example.org/> .\n';
      for (let i = 0; i < size.blankNodes / 4; i++) body += `_:a${i} ex:p _:b${i} . _:b${i} ex:p _:c${i} . _:c${i} ex:p _:d${i} . _:d${i} ex:p _:a${i} .\n`;
      // The issue's other shape: people, each with a blank-node address (a blank-node-blind hash merges them all).
      const people = size.blankNodes / 4;
      let addresses = '@prefix ex: <http://example.org/> .\n';
      for (let i = 0; i < people; i++) addresses += `ex:p${i} ex:address [ ex:street "street ${i}" ; ex:zip "${String(i).padStart(5, '0')}" ] .\n`;
      const s = await site((p, res) => turtle(res, p === '/people.ttl' ? addresses : body));
      return {
        seeds: [`${s.url}/cycles.ttl`, `${s.url}/people.ttl`],
        watch: [
          { url: `${s.url}/cycles.ttl`, reasons: ['fetched', 'over-budget'], archived: { triples: size.blankNodes, blankNodes: size.blankNodes } },
          { url: `${s.url}/people.ttl`, reasons: ['fetched', 'over-budget'], archived: { triples: 3 * people, blankNodes: people } },
        ],
        close: closeAll(s),
      };
    },
  },
  {
    name: 'huge-literal', group: 'content',
    about: 'one Turtle literal of 50 MB (4 MiB in tests), within --max-body',
    async start(size) {
      const body = Buffer.concat([Buffer.from('<urn:x:big> <http://example.org/p> "'), Buffer.alloc(size.literalBytes, 'x'), Buffer.from('" .\n')]);
      const s = await site((_p, res) => turtle(res, body));
      return {
        seeds: [`${s.url}/literal.ttl`], watch: [{ url: `${s.url}/literal.ttl`, reasons: ['fetched', 'over-budget'] }],
        crawl: { maxBodyBytes: size.literalBytes + MiB }, close: closeAll(s),
      };
    },
  },
  {
    name: 'invalid-utf8', group: 'content',
    about: 'Turtle declared UTF-8 with invalid byte sequences in a literal (a diagnostic is expected)',
    async start() {
      const body = Buffer.concat([Buffer.from('<urn:x:u> <http://example.org/p> "bad '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]), Buffer.from(' bytes" .\n')]);
      const s = await site((_p, res) => res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8' }).end(body));
      return { seeds: [`${s.url}/utf8.ttl`], watch: [{ url: `${s.url}/utf8.ttl`, reasons: ['fetched', 'parse-error'], diagnostic: /utf-?8|invalid|replac/i }], close: closeAll(s) };
    },
  },

  // ---- robots.txt
  {
    name: 'robots-huge', group: 'robots',
    about: 'a 100 MB robots.txt (8 MiB in tests) that disallows /private',
    async start(size) {
      const body = Buffer.concat([Buffer.from('User-agent: *\nDisallow: /private\n'), Buffer.alloc(size.robotsBytes, '# padding padding padding padding\n')]);
      const f = await robotsCase((_p, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(body), ['fetched']);
      const origin = new URL(f.seeds[0]).origin;
      f.seeds.push(`${origin}/private/x`);
      f.watch.push({ url: `${origin}/private/x`, reasons: ['robots-disallowed'] });
      return f;
    },
  },
  { name: 'robots-500', group: 'robots', about: 'robots.txt answers 500, always', start: () => robotsCase((_p, res) => res.writeHead(500).end('down'), ['robots-unavailable']) },
  { name: 'robots-timeout', group: 'robots', about: 'robots.txt never answers', start: () => robotsCase(() => undefined, ['robots-unavailable']) },
  {
    name: 'robots-redirects-10', group: 'robots',
    about: 'robots.txt redirects 10 times (RFC 9309: unavailable, so allow all)',
    start: () => robotsCase((p, res) => {
      const n = p === '/robots.txt' ? 0 : Number(p.split('/').pop());
      res.writeHead(301, { location: `/robots/${n + 1}` }).end();
    }, ['fetched']),
  },

  // ---- discovery: traps and limits
  {
    name: 'calendar-trap', group: 'discovery',
    about: 'an infinite calendar: every month links the next and the previous one',
    async start() {
      const s = await site((p, res, url) => {
        const m = /^\/cal\/(\d+)$/.exec(p);
        const n = m ? Number(m[1]) : 24_312;
        turtle(res, `<${url.href}> <http://example.org/next> <${url.origin}/cal/${n + 1}> ; <http://example.org/prev> <${url.origin}/cal/${n - 1}> .\n`);
      });
      return {
        seeds: [`${s.url}/cal/24312`], watch: [{ url: `${s.url}/cal/24312`, reasons: ['fetched'] }],
        // --depth 3 (the default) bounds it: 7 months at most, and the cut is a logged reason.
        requests: { count: hitsOf(s), max: 7 }, seen: { prefix: s.url, reasons: ['filtered-depth'] }, close: closeAll(s),
      };
    },
  },
  {
    name: 'growing-query-trap', group: 'discovery',
    about: 'each page links a URL whose query string is twice as long',
    async start() {
      const s = await site((_p, res, url) => {
        const q = url.searchParams.get('q') ?? 'ab';
        turtle(res, `<${url.href}> <http://example.org/next> <${url.origin}/grow?q=${q}${q}> .\n`);
      });
      return {
        seeds: [`${s.url}/grow?q=ab`], watch: [{ url: `${s.url}/grow?q=ab`, reasons: ['fetched'] }],
        // A URL length limit of about 2 KB ends it after some ten doublings; --depth 1000 does not.
        crawl: { depth: 1000 }, requests: { count: hitsOf(s), max: 14 }, seen: { prefix: s.url, reasons: ['url-too-long'] }, close: closeAll(s),
      };
    },
  },
  {
    name: 'session-id-trap', group: 'discovery',
    about: 'every page links itself with a fresh jsessionid / PHPSESSID',
    async start() {
      let n = 0;
      const s = await site((_p, res, url) => {
        n++;
        turtle(res, `<${url.href}> <http://example.org/again> <${url.origin}/s;jsessionid=${n}A${n}> , <${url.origin}/p?PHPSESSID=${n}b${n}> .\n`);
      });
      return {
        seeds: [`${s.url}/s;jsessionid=0A0`], watch: [{ url: `${s.url}/s;jsessionid=0A0`, also: [`${s.url}/s`], reasons: ['fetched'] }],
        crawl: { depth: 1000 }, requests: { count: hitsOf(s), max: 4 }, close: closeAll(s),
      };
    },
  },
  {
    name: 'sitemap-lists-itself', group: 'discovery',
    about: 'a sitemap index that lists itself and a new index each time',
    async start() {
      const s = await site((_p, res, url) => {
        const n = Number(url.searchParams.get('n') ?? 0);
        res.writeHead(200, { 'content-type': 'application/xml' }).end(
          `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${url.origin}/sitemap.xml?n=${n}</loc></sitemap><sitemap><loc>${url.origin}/sitemap.xml?n=${n + 1}</loc></sitemap></sitemapindex>`,
        );
      });
      const first = `${s.url}/sitemap.xml?n=0`;
      return { seeds: [], watch: [{ url: first, reasons: ['fetched'] }], crawl: { sitemapUrls: [first] }, requests: { count: hitsOf(s), max: 5 }, close: closeAll(s) };
    },
  },
  {
    name: 'many-links', group: 'discovery',
    about: '100,000 links on one HTML page (a diagnostic says how many were dropped)',
    async start(size) {
      const links = Array.from({ length: size.links }, (_, i) => `<a href="/l/${i}">${i}</a>`).join('\n');
      const s = await site((_p, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>links</title></head><body>${links}</body></html>`));
      return {
        seeds: [`${s.url}/links.html`], watch: [{ url: `${s.url}/links.html`, reasons: ['fetched'], diagnostic: /link/i }],
        // The links themselves are kept out by --exclude: the case is the page, not 100,000 fetches.
        crawl: { exclude: ['/l/'], maxBodyBytes: 16 * MiB }, requests: { count: hitsOf(s), max: 1 }, close: closeAll(s),
      };
    },
  },
  {
    name: 'url-100kb', group: 'discovery',
    about: 'a page linking a 100 KB URL',
    async start(size) {
      const s = await site((p, res, url) => {
        if (p === '/page.ttl') return turtle(res, `<${url.href}> <http://example.org/link> <${url.origin}/long?${'a'.repeat(size.urlBytes)}> .\n`);
        turtle(res, '<urn:x:long> <urn:x:p> "the long URL was fetched" .\n');
      });
      return {
        seeds: [`${s.url}/page.ttl`], watch: [{ url: `${s.url}/page.ttl`, reasons: ['fetched'] }],
        // Logged under its origin with url-too-long (the log may well shorten a 100 KB URL), and never requested.
        seen: { prefix: s.url, reasons: ['url-too-long'] },
        requests: { count: hitsOf(s, (p) => p.startsWith('/long')), max: 0 }, close: closeAll(s),
      };
    },
  },
];

export const faultCase = (name: string): FaultCase => {
  const c = FAULT_CASES.find((x) => x.name === name);
  if (!c) throw new Error(`no fault case '${name}' (cases: ${FAULT_CASES.map((x) => x.name).join(', ')})`);
  return c;
};

export type { FaultServer };
