/**
 * A pool thread: analyses one document at a time. JSON-LD remote contexts are asked of the main
 * thread, where the crawl's polite loader and its cache live.
 */
import { parentPort } from 'node:worker_threads';
import { serveThread } from '../../util/ts-thread.ts';
import { analyse, encodeQuads } from './analyse.ts';
import type { ToThread, FromThread, WireInput } from './pool.ts';

const port = parentPort!;
let nextLoad = 0;
const loads = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

port.on('message', (m: ToThread) => {
  if (m.type !== 'loaded') return;
  const p = loads.get(m.req);
  loads.delete(m.req);
  if (m.error !== undefined) p?.reject(new Error(m.error));
  else p?.resolve(m.value);
});

function loadDocument(id: number, url: string): Promise<unknown> {
  const req = nextLoad++;
  return new Promise((resolve, reject) => {
    loads.set(req, { resolve, reject });
    port.postMessage({ type: 'load', id, req, url } satisfies FromThread);
  });
}

serveThread<Extract<ToThread, { type: 'analyse' }> | Extract<ToThread, { type: 'loaded' }>>(async (m) => {
  if (m.type !== 'analyse') return;
  const input: WireInput = m.input;
  try {
    const a = await analyse(
      { ...input, body: Buffer.from(input.body.buffer, input.body.byteOffset, input.body.byteLength) },
      { maxQuads: m.maxQuads, requisites: m.requisites, loadDocument: m.remoteContexts ? (url) => loadDocument(m.id, url) : undefined, wantText: true },
    );
    port.postMessage({
      type: 'done', id: m.id,
      result: { quads: encodeQuads(a.quads), links: a.links, diagnostics: a.diagnostics, robots: a.robots, title: a.title, text: a.text, canonical: a.canonical, requisites: a.requisites, pageQuadsFrom: a.pageQuadsFrom },
    } satisfies FromThread);
  } catch (e) {
    port.postMessage({ type: 'failed', id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies FromThread);
  }
}, async () => {});

port.postMessage({ type: 'ready' } satisfies FromThread);
