import { afterEach, describe, expect, it } from 'vitest';
import { stageKit } from './kit.ts';

describe('the scope stage', () => {
  let kit: Awaited<ReturnType<typeof stageKit>>;
  afterEach(() => kit.close());

  it('normalises, filters, and queues a URL once; filtered URLs are counted once each, by filter', async () => {
    kit = await stageKit({ maxDepth: 1, domains: ['a.test'], exclude: ['\\.pdf$'] });
    const { scope, frontier, fates, store } = kit;
    expect(scope.offer('HTTP://a.test/x#frag', 0, false)).toBe('queued');
    expect(scope.offer('http://a.test/x', 1, false)).toBe('known');
    expect(scope.offer('mailto:someone@a.test', 1, false)).toBe('invalid');
    expect(scope.offer('http://b.test/', 1, false)).toBe('filtered-domain');
    expect(scope.offer('http://b.test/', 1, false)).toBe('filtered-domain');
    expect(scope.offer('http://a.test/doc.pdf', 1, false)).toBe('filtered-exclude');
    expect(scope.offer('http://a.test/deep', 2, false)).toBe('filtered-depth');
    expect(scope.offer('http://a.test/vocab', 2, true)).toBe('queued'); // vocabularies at any depth
    expect(scope.offer('http://a.test/x', 0, false, true)).toBe('queued'); // forced: a re-crawl's seed
    expect(frontier.size).toBe(3);
    expect(scope.filtered).toBe(3);
    expect(fates.counts).toMatchObject({ 'filtered-domain': 1, 'filtered-exclude': 1, 'filtered-depth': 1 });
    await scope.flush(store);
    expect((await store.getDocuments(['http://a.test/x', 'http://a.test/vocab'])).map((d) => d.state)).toEqual(['queued', 'queued']);
  });

  it('does not count as filtered a URL known already (reached again deeper)', async () => {
    kit = await stageKit({ maxDepth: 1 });
    kit.scope.offer('http://a.test/x', 1, false);
    expect(kit.scope.offer('http://a.test/x', 2, false)).toBe('filtered-depth');
    expect(kit.scope.filtered).toBe(0);
  });
});
