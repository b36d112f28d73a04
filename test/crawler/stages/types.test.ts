import { describe, expect, it } from 'vitest';
import { newJob, runChain, type Stage } from '../../../src/crawler/stages/types.ts';

const entry = { url: 'http://a.test/', host: 'a.test', origin: 'http://a.test', depth: 0, key: 0 };

describe('runChain', () => {
  it('runs the stages in order, skips those that have nothing to do, and stops at the one that settles the job', async () => {
    const seen: string[] = [];
    const stage = (name: string, next: 'continue' | 'done', should = true): Stage => ({ name, shouldProcess: () => should, process: async () => (seen.push(name), next) });
    await runChain([stage('a', 'continue'), stage('b', 'continue', false), stage('c', 'done'), stage('d', 'continue')], newJob(entry), async () => {});
    expect(seen).toEqual(['a', 'c']);
  });

  it("hands a stage's failure to onError, then finishes every stage reached, last first", async () => {
    const order: string[] = [];
    const finishing = (name: string): Stage => ({ name, process: async () => 'continue', finish: async () => void order.push(`finish ${name}`) });
    const failing: Stage = { name: 'boom', process: async () => { throw new Error('boom'); } };
    const job = newJob(entry);
    await runChain([finishing('politeness'), finishing('other'), failing, finishing('never')], job, async (j, err) => {
      j.ok = false;
      order.push(`error ${(err as Error).message}`);
    });
    expect(order).toEqual(['error boom', 'finish other', 'finish politeness']);
    expect(job.ok).toBe(false);
  });
});
