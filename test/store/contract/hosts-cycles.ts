/** The HostStore and CycleStore contracts: the crawler's per-host record, and the scheduler's cycles. */
import { describe, expect, it } from 'vitest';
import type { CycleStore, HostStore, StoreLifecycle } from '../../../src/store/types.ts';
import { type StoreMaker, useStores } from './harness.ts';

const T0 = 1_700_000_000_000;

export function hostStoreContract(make: StoreMaker<HostStore & StoreLifecycle>): void {
  describe.skipIf(make.skip)(`HostStore on ${make.name}`, () => {
    const fx = useStores(make);

    it('putHost inserts and then replaces a host row whole; hosts are kept apart', async () => {
      const { s } = fx;
      expect(await s.getHost('a.example')).toBeUndefined();
      const row = { host: 'a.example', robotsTxt: 'User-agent: *\nDisallow: /private', robotsStatus: 200, robotsFetchedAt: T0, crawlDelayMs: 1500, meanDownloadMs: 42.5, fetches: 3, errors: 1 };
      await s.putHost(row);
      await s.putHost({ host: 'b.example', fetches: 0, errors: 7 });
      expect(await s.getHost('a.example')).toEqual(row);
      await s.putHost({ host: 'a.example', robotsStatus: 404, fetches: 4, errors: 1 });
      expect(await s.getHost('a.example')).toEqual({ host: 'a.example', robotsStatus: 404, fetches: 4, errors: 1 });
      expect(await s.getHost('b.example')).toEqual({ host: 'b.example', fetches: 0, errors: 7 });
      await s.flush();
      expect(await (await fx.open()).getHost('a.example')).toEqual({ host: 'a.example', robotsStatus: 404, fetches: 4, errors: 1 });
    });
  });
}

export function cycleStoreContract(make: StoreMaker<CycleStore & StoreLifecycle>): void {
  describe.skipIf(make.skip)(`CycleStore on ${make.name}`, () => {
    const fx = useStores(make);

    it('startCycle numbers cycles upwards, finishCycle patches one, cycles() lists them oldest first', async () => {
      const { s } = fx;
      expect(await s.cycles()).toEqual([]);
      const a = await s.startCycle({ startedAt: T0, urls: 10, status: 'running', estimateMs: 1234.5 });
      const b = await s.startCycle({ startedAt: T0 + 3_600_000, urls: 0, status: 'skipped', note: 'previous cycle still running' });
      expect(b).toBeGreaterThan(a);
      await s.finishCycle(a, { endedAt: T0 + 60_000, actualMs: 60_000, status: 'done' });
      await s.finishCycle(b, {});
      await s.finishCycle(b + 1000, { status: 'failed' }); // an unknown id: nothing, no error
      const expected = [
        { id: a, startedAt: T0, endedAt: T0 + 60_000, urls: 10, estimateMs: 1234.5, actualMs: 60_000, status: 'done' },
        { id: b, startedAt: T0 + 3_600_000, urls: 0, status: 'skipped', note: 'previous cycle still running' },
      ];
      expect(await s.cycles()).toEqual(expected);
      // A cycle is visible to another process at once: the dashboard shows a running cycle.
      expect(await (await fx.open()).cycles()).toEqual(expected);
    });
  });
}
