import { afterEach, describe, expect, it } from 'vitest';
import { PolitenessStage } from '../../../src/crawler/stages/politeness.ts';
import { newJob } from '../../../src/crawler/stages/types.ts';
import { stageKit } from './kit.ts';

describe('the politeness stage', () => {
  let kit: Awaited<ReturnType<typeof stageKit>>;
  afterEach(() => kit.close());

  it('releases the host when a job ends, and drops the queue of a host that keeps failing, recording each URL', async () => {
    kit = await stageKit();
    const { frontier, fates, scope, store } = kit;
    const counts = { skipped: { hostFailing: 0 } };
    const stage = new PolitenessStage({ frontier, fates, maxFailures: 2, counts });
    for (const p of ['a', 'b', 'c', 'd']) scope.offer(`http://a.test/${p}`, 0, false);
    await scope.flush(store);
    for (let i = 0; i < 2; i++) {
      const e = frontier.pop(Date.now() + 1e9)!;
      const job = newJob(e);
      job.ok = false;
      await stage.finish(job);
    }
    expect(frontier.size).toBe(0);
    expect(counts.skipped.hostFailing).toBe(2);
    expect((await kit.log()).map((e) => e.reason)).toEqual(['failing-origin', 'failing-origin']);
  });

  it('a job that went well leaves the host ready for the next URL', async () => {
    kit = await stageKit();
    const { frontier, fates, scope } = kit;
    const stage = new PolitenessStage({ frontier, fates, maxFailures: 2, counts: { skipped: { hostFailing: 0 } } });
    scope.offer('http://a.test/1', 0, false);
    scope.offer('http://a.test/2', 0, false);
    const e = frontier.pop(Date.now())!;
    expect(frontier.pop(Date.now())).toBeUndefined(); // one per host at a time
    await stage.finish(newJob(e));
    expect(frontier.pop(Date.now())?.url).toBe('http://a.test/2');
  });
});
