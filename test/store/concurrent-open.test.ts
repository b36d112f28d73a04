/**
 * Processes started together on one new archive (two `datamonitor worker --db FILE`, or a `serve` and a
 * `crawl`) each open the same new SQLite file. Switching a new file to WAL mode is answered "database is
 * locked" at once, without SQLite's busy handler, while another connection holds the lock: a worker
 * exited 70 on one CI run in ten. Threads stand in for the processes (each has its own connection).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TsThread } from '../../src/util/ts-thread.ts';

const THREADS = 4;
const ROUNDS = 25;

describe('several connections opening one new store file at once', () => {
  let threads: TsThread[];
  let tmp: string;
  beforeAll(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-concurrent-open-'));
    threads = Array.from({ length: THREADS }, () => new TsThread(new URL('./fixtures/open-thread.ts', import.meta.url), {}));
  }, 60_000);
  afterAll(async () => {
    await Promise.all((threads ?? []).map((t) => t.close()));
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  const openAll = (kind: 'meta' | 'versions', file: string): Promise<(string | undefined)[]> =>
    Promise.all(threads.map((t) => new Promise<string | undefined>((resolve, reject) => {
      const onMessage = (m: { type: string; error?: string }) => {
        if (m.type !== 'opened') return;
        t.worker.off('message', onMessage);
        resolve(m.error);
      };
      t.worker.on('message', onMessage);
      t.worker.once('error', reject);
      t.worker.postMessage({ type: 'open', kind, file });
    })));

  for (const kind of ['meta', 'versions'] as const) {
    it(`opens the ${kind} store in every one, every time`, async () => {
      const errors: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const file = path.join(tmp, `${kind}-${round}.sqlite`);
        for (const e of await openAll(kind, file)) if (e) errors.push(e);
      }
      expect(errors, errors[0]).toEqual([]);
    }, 120_000);
  }
});
