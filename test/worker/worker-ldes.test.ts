import { describe, expect, it } from 'vitest';
import path from 'node:path';
import { runMain, tempDir } from '../helpers.ts';

/**
 * `worker --ldes` is refused with what to run instead: a stream's members are archived in time order once its
 * pages are read, by the one process that read them, while workers split a crawl's hosts among processes.
 */
describe('worker --ldes', () => {
  it('says to read the stream with crawl --ldes (or monitor it with add --ldes), and reads nothing', async () => {
    const dir = tempDir('dm-worker-ldes-');
    const r = await runMain(['worker', '--db', path.join(dir, 'meta.sqlite'), '--data', dir, '--ldes', 'http://127.0.0.1:9/ldes', '--allow-private', '--idle-exit', '1s']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/worker does not read Linked Data Event Streams/);
    expect(r.err).toMatch(/datamonitor crawl --ldes URL/);
    expect(r.err).toMatch(/datamonitor add --ldes URL/);
  });
});
