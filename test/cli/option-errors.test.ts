/**
 * A library caller gets errors in the library's terms, a CLI user in the CLI's: `crawl({ depth: -1 })`
 * has no `--depth` to blame, and `datamonitor crawl --depth -1` has no `depth` field (#14).
 */
import { describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { hotPages } from '../../src/lab/ordering/importance.ts';
import { OptionError, flagOf } from '../../src/util/errors.ts';
import { cli, tempDir } from '../helpers.ts';
import { EXIT } from '../../src/util/exit-codes.ts';

describe('option errors', () => {
  it('the library names its option', async () => {
    const err = await crawl({ seeds: ['http://127.0.0.1:9/'], dataDir: tempDir('dm-opt-'), depth: -1 }).run().catch((e) => e);
    expect(err).toBeInstanceOf(OptionError);
    expect(err.message).toBe('depth must be a number ≥ 0, got -1');
    const perHost = await crawl({ seeds: ['http://127.0.0.1:9/'], dataDir: tempDir('dm-opt-'), perHost: 0 }).run().catch((e) => e);
    expect(perHost.message).toBe('perHost must be at least 1, got 0');
    const frontier = await crawl({ seeds: ['http://127.0.0.1:9/'], dataDir: tempDir('dm-opt-'), frontierMemory: 0 }).run().catch((e) => e);
    expect(frontier.message).toBe('frontierMemory must be at least 1 (Infinity: no bound), got 0');
    expect(() => hotPages(Float64Array.from([1, 2]), { top: 0 })).toThrow('top must be a positive whole number');
  });

  it('the CLI names its flag', async () => {
    const r = await cli(['crawl', 'http://127.0.0.1:9/', '--data', tempDir('dm-opt-'), '--per-host', '0']);
    expect(r.err).toContain('datamonitor: --per-host must be at least 1, got 0');
    expect(r.code).toBe(EXIT.usage);
  });

  it('maps option names to flags', () => {
    expect(['depth', 'delayMs', 'maxDocs', 'maxTimeMs', 'perHost', 'leaseMs'].map(flagOf)).toEqual(['--depth', '--delay', '--max-docs', '--max-time', '--per-host', '--lease']);
  });
});
