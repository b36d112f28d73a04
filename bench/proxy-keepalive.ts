/**
 * `node bin/run-ts.mjs bench/proxy-keepalive.ts [--stall-every 300] [--stall-ms 3500] [--seconds 60] [--proxy-module PATH]`:
 * the crawler's fetcher (undici, 64 at a time over 100 host names, pauses of 0–4 s so its kept-alive
 * connections go idle for every length) through the test forward proxy, whose process now and then
 * stalls inside a request's callback, as a process sharing 2 cores at load ~40 does. Prints what the
 * fetcher met. A proxy that closes idle client connections exactly when its Keep-Alive header says
 * resets the requests already sent on them during a stall (the scale run's `connection-reset`s);
 * `--proxy-module` runs another version of src/testkit/forward-proxy.ts, put inside the checkout so
 * the TypeScript loader takes it: `git show 27ce46e:src/testkit/forward-proxy.ts > src/testkit/forward-proxy-before.tmp.ts`.
 * Figures: bench/SCALE-RUN.md, "The resets through the proxy".
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createHttpFetcher } from '../src/fetch/index.ts';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const stallEvery = Number(arg('--stall-every', '300'));
const stallMs = Number(arg('--stall-ms', '3500'));
const proxyModule = path.resolve(arg('--proxy-module', 'src/testkit/forward-proxy.ts'));

if (process.argv.includes('--child')) {
  const { startServer } = await import('../src/testkit/server.ts');
  const { startForwardProxy } = (await import(proxyModule)) as typeof import('../src/testkit/forward-proxy.ts');
  let n = 0;
  const web = await startServer((_req, res, url) => {
    if (++n % stallEvery === 0) {
      const t = Date.now();
      while (Date.now() - t < stallMs);
    }
    res.writeHead(200, { 'content-type': 'text/turtle' }).end(`<${url.href}> <urn:x:p> "x" .\n`);
  });
  const proxy = await startForwardProxy((host) => (host.endsWith('.lod.test') ? web.port : undefined));
  process.stdout.write(`${proxy.url}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
} else {
  const child = spawn(process.execPath, [path.resolve('bin/run-ts.mjs'), path.resolve('bench/proxy-keepalive.ts'), '--child', ...process.argv.slice(2)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const proxyUrl = await new Promise<string>((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  const fetcher = createHttpFetcher({ userAgent: 'proxy-keepalive-bench', allowPrivate: true, proxy: proxyUrl, headersTimeoutMs: 30_000, totalTimeoutMs: 60_000 });
  const end = Date.now() + Number(arg('--seconds', '60')) * 1000;
  const met = new Map<string, number>();
  let i = 0;
  const worker = async () => {
    while (Date.now() < end) {
      const o = await fetcher.fetch(`http://h${i % 100}.lod.test:8080/doc/${i++}`);
      const key = o.response ? `HTTP ${o.response.status}` : `${o.error?.code}${o.error?.network ? `/${o.error.network}` : ''}${o.error?.phase ? `/${o.error.phase}` : ''}`;
      met.set(key, (met.get(key) ?? 0) + 1);
      await new Promise((r) => setTimeout(r, Math.random() * 4_000));
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
  console.log(`${path.relative(process.cwd(), proxyModule)}, a ${stallMs} ms stall every ${stallEvery} requests: ${JSON.stringify(Object.fromEntries(met))}`);
  await fetcher.close();
  child.stdin.end();
}
