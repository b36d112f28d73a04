import { describe, it, expect } from 'vitest';
import { BloomFilter } from '../../src/federation/bloom.ts';
import { HoldingsIndex, PublishedHoldings } from '../../src/federation/holdings.ts';
import { openStore } from '../../src/store/index.ts';
import { tempDir } from '../helpers.ts';

describe('Bloom filter of URL keys', () => {
  it('never misses a key added, and errs on about fpRate of the others; survives its JSON form', () => {
    const f = BloomFilter.forCapacity(10_000, 0.01);
    for (let i = 0; i < 10_000; i++) f.add(`http://h${i % 97}.example/doc/${i}`);
    const back = BloomFilter.fromJSON(JSON.parse(JSON.stringify(f.toJSON())));
    for (let i = 0; i < 10_000; i++) expect(back.mayContain(`http://h${i % 97}.example/doc/${i}`)).toBe(true);
    let wrong = 0;
    for (let i = 0; i < 20_000; i++) if (back.mayContain(`http://h${i % 97}.example/other/${i}`)) wrong++;
    expect(wrong / 20_000).toBeGreaterThan(0.002);
    expect(wrong / 20_000).toBeLessThan(0.02);
    expect(f.bits.length).toBeLessThan(10_000 * 1.3); // about 1.2 bytes a URL
    expect(() => BloomFilter.fromJSON({ m: 64, k: 3, bits: 'AAAA' })).toThrow(/needs 8 bytes/);
    expect(() => BloomFilter.fromJSON({ hello: 1 })).toThrow(/not a Bloom filter/);
  });
});

describe('an archive\'s holdings', () => {
  it('follow the crawl log as it grows past the filter\'s first size, counting only captures', async () => {
    const dir = tempDir('dm-holdings-');
    const store = await openStore(dir);
    await store.init();
    const log = (url: string, withRecord: boolean, finalUrl?: string) => store.appendLog({
      url, finalUrl, time: Date.now(), status: 200, durationMs: 1, bytes: 10, change: 'new', triples: 1,
      ...(withRecord ? { warcFile: 'warc/x.warc.gz', warcOffset: 0, warcLength: 10 } : {}),
    });
    const holdings = new HoldingsIndex(store);
    for (let i = 0; i < 300; i++) await log(`http://a.example/${i}`, true);
    await log('http://a.example/failed', false);
    let doc = await holdings.document();
    expect(doc.urls).toBe(300);
    expect(doc.hosts).toEqual([{ host: 'a.example', urls: 300, captures: 300 }]);
    const firstSize = doc.bloom.m;

    // Past the first size (1024 keys): rebuilt larger from the log, every URL still found.
    for (let i = 0; i < 3000; i++) await log(`http://b.example/${i}`, true, i === 0 ? 'http://c.example/landed' : undefined);
    await log('http://a.example/0', true); // a second capture of a held URL
    await store.flush();
    doc = await holdings.document();
    expect(doc.bloom.m).toBeGreaterThan(firstSize);
    expect(doc.urls).toBeGreaterThanOrEqual(3290); // counted through the filter: may be short by its false positives
    expect(doc.captures).toBe(3301);
    expect(doc.hosts.map((h) => h.host)).toEqual(['a.example', 'b.example', 'c.example']);
    expect(doc.hosts[0]).toMatchObject({ captures: 301 });
    const published = PublishedHoldings.fromJSON(JSON.parse(JSON.stringify(doc)));
    for (let i = 0; i < 300; i++) expect(published.mayHold(`http://a.example/${i}`)).toBe(true);
    for (let i = 0; i < 3000; i++) expect(published.mayHold(`http://b.example/${i}`)).toBe(true);
    // The redirect's target is held too (the archive's TimeMap answers for it), and keys are normalised URLs.
    expect(published.mayHold('HTTP://C.EXAMPLE:80/landed')).toBe(true);
    let wrong = 0;
    for (let i = 0; i < 5000; i++) if (published.mayHold(`http://z.example/${i}`)) wrong++;
    expect(wrong).toBeLessThan(5000 * 0.03);
    await store.close();
  }, 60_000);
});
