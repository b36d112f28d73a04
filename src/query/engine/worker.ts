/**
 * A query process: runs one query at a time with runQuery (so whatever runQuery does, formatting
 * included, happens here and not in the server), and sends the body in chunks as the reader asks for
 * them. Started by unit.ts (host.ts) as a child process, or as a worker thread of the asking process;
 * it may be killed at any moment (over time, over memory, client gone), which is the point: a
 * WebAssembly panic or a runaway allocation ends this process, never the server, and the next query
 * gets a fresh one.
 */
import { parentPort } from 'node:worker_threads';
import { runQuery } from '../sparql.ts';
import { analyseQuery } from '../sparql-text.ts';
import { queryChanges, queryVersions } from '../evolution.ts';
import { VersionArchive } from '../../versions/sqlite-store.ts';
import { PgVersionArchive } from '../../versions/pg-store.ts';
import type { VersionBackend } from '../../versions/backend.ts';
import { UserError } from '../../util/errors.ts';
import { QueryLimitError } from './limits.ts';
import type { FromUnit, ToUnit } from './wire.ts';

/** Chunk size of a body: large enough that IPC costs little, small enough to keep the reader's pace. */
const CHUNK = 256 * 1024;
/** Archives kept open: a server has one; more only in tests. */
const MAX_OPEN = 2;

const archives = new Map<string, VersionBackend>();
let sending: { id: number; body: Buffer; offset: number } | undefined;

/** A worker thread talks over its port; a child process over its IPC channel. */
const port = parentPort;

function send(m: FromUnit): void {
  if (!port) return void process.send!(m);
  // A view is cloned with its whole buffer: a chunk of the body goes as bytes of its own (a copy: a
  // Buffer's slice() is a view), moved, not copied again.
  if (m.type === 'chunk') {
    const data = new Uint8Array(m.data);
    port.postMessage({ ...m, data }, [data.buffer]);
  } else port.postMessage(m);
}

function archiveAt(file: string): VersionBackend {
  let archive = archives.get(file);
  if (archive) {
    archives.delete(file); // re-inserted last: the map's order is the order of use
  } else {
    // Read-only: this process only reads; the caller keeps the index caught up.
    archive = /^postgres(ql)?:\/\//.test(file) ? new PgVersionArchive(file, { readonly: true }) : new VersionArchive(file, { readonly: true });
    for (const [old, a] of archives) {
      if (archives.size < MAX_OPEN) break;
      archives.delete(old);
      void a.close();
    }
  }
  archives.set(file, archive);
  return archive;
}

async function run(m: Extract<ToUnit, { type: 'run' }>): Promise<void> {
  sending = undefined;
  let body: Buffer;
  try {
    const result = m.evolution ? await overTime(m) : await runQuery(archiveAt(m.file), m.sparql, m.opts);
    body = typeof result.body === 'string' ? Buffer.from(result.body, 'utf8') : Buffer.from(result.body as Uint8Array);
    if (body.length > m.resultBytes) return send({ type: 'error', id: m.id, kind: 'result', message: 'result too large', bytes: body.length });
    send({ type: 'head', id: m.id, form: result.form, format: result.format, mediaType: result.mediaType, at: result.at, quads: result.quads, bytes: body.length });
  } catch (e) {
    // This process's Oxigraph is broken (a trap): the engine ends it, and the next query gets a fresh one.
    if (e instanceof QueryLimitError && e.kind === 'engine') return send({ type: 'error', id: m.id, kind: 'engine', message: e.detail });
    if (e instanceof UserError) return send({ type: 'error', id: m.id, kind: 'user', message: e.message, exitCode: e.exitCode });
    // A panic inside Oxigraph leaves its WebAssembly state unusable: the engine ends this process.
    return send({ type: 'error', id: m.id, kind: 'failed', message: e instanceof Error ? e.message : String(e) });
  }
  if (body.length === 0) return;
  sending = { id: m.id, body, offset: 0 };
  more(m.id); // the first chunk comes unasked: a small result then costs no round trip

}

/** Ver(Q) or Change(Q) as a result whose body is their JSON. */
async function overTime(m: Extract<ToUnit, { type: 'run' }>) {
  const archive = archiveAt(m.file);
  const { kind, window } = m.evolution!;
  const answers = kind === 'versions' ? await queryVersions(archive, m.sparql, window) : await queryChanges(archive, m.sparql, window);
  return { form: analyseQuery(m.sparql).form, format: 'json' as const, mediaType: 'application/json', at: Date.now(), quads: 0, body: JSON.stringify(answers) };
}

function more(id: number): void {
  const s = sending;
  if (!s || s.id !== id) return;
  const data = s.body.subarray(s.offset, s.offset + CHUNK);
  s.offset += data.length;
  // The engine ends the body when it has the head's byte count: no message after the last chunk.
  if (s.offset >= s.body.length) sending = undefined;
  send({ type: 'chunk', id, data });
}

function receive(m: ToUnit): void {
  if (m.type === 'run') void run(m);
  else if (m.type === 'more') more(m.id);
  else if (m.type === 'cancel' && sending?.id === m.id) sending = undefined;
}
if (port) port.on('message', receive);
else {
  process.on('message', receive);
  // The engine's process is gone (ended, crashed): nothing is left to answer.
  process.on('disconnect', () => process.exit(0));
}
send({ type: 'ready' });
