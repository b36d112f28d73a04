/**
 * The LeaseStore contract (WorkerStore: the whole store and host leases): which worker fetches which
 * host, so that one host is never fetched by two workers at once and a dead worker's hosts are taken over.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { partitionOfHost } from '../../../src/store/host-partition.ts';
import type { WorkerStore } from '../../../src/store/worker-types.ts';
import { type StoreMaker, useStores } from './harness.ts';

const HOSTS = Array.from({ length: 30 }, (_, i) => `h${i}.example`);
const LEASE = 10_000;

async function addSite(s: WorkerStore, hosts = HOSTS): Promise<void> {
  await s.addDocuments(hosts.flatMap((h) => [0, 1, 2].map((k) => ({ url: `http://${h}/p${k}`, host: h, depth: k }))));
}

export function leaseStoreContract(make: StoreMaker<WorkerStore>): void {
  describe.skipIf(make.skip)(`LeaseStore on ${make.name}`, () => {
    const fx = useStores(make);
    const open = fx.open;
    let s: WorkerStore;
    beforeEach(() => void (s = fx.s));
    const now = () => Date.now();

    it('a worker leases the hosts of its own partition that have work, and only those at first', async () => {
      await addSite(s);
      await s.addDocuments([{ url: 'http://idle.example/', host: 'idle.example', depth: 0 }]);
      await s.updateDocument('http://idle.example/', { state: 'fetched' });
      await s.flush();
      const t = now();
      const got = await s.leaseHosts('w0', { index: 0, count: 3 }, LEASE, 100, t);
      const mine = HOSTS.filter((h) => partitionOfHost(h, 3) === 0).sort();
      expect(got.map((l) => l.host)).toEqual(mine);
      for (const l of got) expect(l).toEqual({ host: l.host, worker: 'w0', expiresAt: t + LEASE });
      expect(await s.leaseHosts('w0', { index: 0, count: 3 }, LEASE, 100, t)).toEqual([]);
      expect((await s.activeLeases(t)).map((l) => l.host)).toEqual(mine);
    });

    it('maxHosts caps a lease; hostDocuments lists the queued and due documents of one host', async () => {
      await addSite(s);
      await s.addDocuments([{ url: 'http://h1.example/due', host: 'h1.example', depth: 0 }], { monitored: true, nextFetch: 1000 });
      await s.updateDocument('http://h1.example/due', { state: 'fetched' });
      await s.addDocuments([{ url: 'http://h1.example/later', host: 'h1.example', depth: 0 }], { monitored: true, nextFetch: 9e15 });
      await s.updateDocument('http://h1.example/later', { state: 'fetched' });
      await s.updateDocument('http://h1.example/p0', { state: 'fetched' });
      await s.flush();
      expect(await s.leaseHosts('w', { index: 0, count: 1 }, LEASE, 4)).toHaveLength(4);
      expect((await s.hostDocuments('h1.example', 2000, 10)).map((d) => d.url)).toEqual(['http://h1.example/due', 'http://h1.example/p1', 'http://h1.example/p2']);
      expect((await s.hostDocuments('h1.example', 2000, 1)).map((d) => d.url)).toEqual(['http://h1.example/due']);
    });

    it('workers leasing at the same moment never hold one host together, and together they hold every host', async () => {
      await addSite(s);
      await s.flush();
      const workers = await Promise.all([0, 1, 2, 3].map(() => open()));
      const t = now();
      // Every worker claims from partition 0 of 1, so they all compete for the same hosts.
      const rounds = await Promise.all(workers.map((w, i) => Promise.all([0, 1, 2].map(() => w.leaseHosts(`w${i}`, { index: 0, count: 1 }, LEASE, 3, t)))));
      const held = rounds.flatMap((r, i) => r.flat().map((l) => ({ ...l, worker: `w${i}` })));
      const hosts = held.map((l) => l.host);
      expect(new Set(hosts).size).toBe(hosts.length); // nobody got a host twice
      expect(hosts.length).toBe(30);
      const active = await s.activeLeases(t);
      expect(active.map((l) => `${l.host} ${l.worker}`).sort()).toEqual(held.map((l) => `${l.host} ${l.worker}`).sort());
    });

    it('a lease that expires is taken over, and the old holder learns it on renewal', async () => {
      await addSite(s);
      await s.flush();
      const other = await open();
      const t = now();
      const a = await s.leaseHosts('A', { index: 0, count: 2 }, LEASE, 100, t);
      expect(a.length).toBeGreaterThan(0);
      const aHosts = a.map((l) => l.host);
      // B (the other partition) first takes its own hosts, none of A's while A's lease runs.
      const b1 = await other.leaseHosts('B', { index: 1, count: 2 }, LEASE, 100, t + 1);
      expect(b1.map((l) => l.host).filter((h) => aHosts.includes(h))).toEqual([]);
      expect(await other.leaseHosts('B', { index: 1, count: 2 }, LEASE, 100, t + LEASE - 1)).toEqual([]);
      // A renews some of its hosts in time and lets the others lapse.
      const kept = aHosts.slice(0, 2);
      expect(await s.renewLease('A', kept, LEASE, t + LEASE - 1)).toEqual([...kept].sort());
      const bHosts = b1.map((l) => l.host);
      expect(await other.renewLease('B', bHosts, LEASE, t + LEASE - 1)).toEqual(bHosts);
      const taken = await other.leaseHosts('B', { index: 1, count: 2 }, LEASE, 100, t + LEASE + 1);
      expect(taken.map((l) => l.host)).toEqual(aHosts.filter((h) => !kept.includes(h)).sort());
      expect(await s.renewLease('A', aHosts, LEASE, t + LEASE + 2)).toEqual([...kept].sort());
      const active = await s.activeLeases(t + LEASE + 2);
      for (const h of aHosts) expect(active.find((l) => l.host === h)?.worker).toBe(kept.includes(h) ? 'A' : 'B');
    });

    it('hosts of a partition without a live worker are taken after one lease period', async () => {
      const before = now(); // hosts are registered (free from then on) while their documents are added
      await addSite(s);
      await s.flush();
      const t = now();
      const partition0 = HOSTS.filter((h) => partitionOfHost(h, 2) === 0).sort();
      const own = await s.leaseHosts('B', { index: 1, count: 2 }, LEASE, 100, t);
      expect(own.map((l) => l.host).filter((h) => partition0.includes(h))).toEqual([]);
      await s.renewLease('B', own.map((l) => l.host), LEASE, before + LEASE - 1);
      expect(await s.leaseHosts('B', { index: 1, count: 2 }, LEASE, 100, before + LEASE - 1)).toEqual([]);
      const later = await s.leaseHosts('B', { index: 1, count: 2 }, LEASE, 100, t + LEASE + 1);
      expect(later.map((l) => l.host)).toEqual(partition0);
    });

    it('releaseHost frees a host at once for its partition; a release by a non-holder changes nothing', async () => {
      await addSite(s, ['solo.example']);
      await s.flush();
      const t = now();
      const p = { index: partitionOfHost('solo.example', 2), count: 2 };
      expect(await s.leaseHosts('A', p, LEASE, 1, t)).toHaveLength(1);
      await s.releaseHost('B', 'solo.example', t);
      expect(await s.leaseHosts('C', p, LEASE, 1, t + 1)).toEqual([]);
      await s.releaseHost('A', 'solo.example', t + 2);
      expect(await s.activeLeases(t + 2)).toEqual([]);
      expect((await s.leaseHosts('C', p, LEASE, 1, t + 3)).map((l) => l.worker)).toEqual(['C']);
      expect(await s.renewLease('A', ['solo.example'], LEASE, t + 4)).toEqual([]);
    });

    it('empty asks get empty answers: no hosts to lease, none to renew, an unknown host has no documents', async () => {
      await addSite(s, ['solo.example']);
      await s.flush();
      const t = now();
      expect(await s.leaseHosts('A', { index: 0, count: 1 }, LEASE, 0, t)).toEqual([]);
      expect(await s.activeLeases(t)).toEqual([]);
      expect(await s.renewLease('A', [], LEASE, t)).toEqual([]);
      expect(await s.hostDocuments('nowhere.example', t, 10)).toEqual([]);
      await s.releaseHost('A', 'nowhere.example', t); // nothing to give back: no error
    });

    it('rejects a partition that does not exist', async () => {
      await expect(s.leaseHosts('A', { index: 2, count: 2 }, LEASE, 1)).rejects.toThrow(/partition/);
      await expect(s.leaseHosts('A', { index: 0, count: 0 }, LEASE, 1)).rejects.toThrow(/partition/);
    });

    it("heldLeases (ReadModel) lists each worker's hosts, lapsed leases included, released ones not, by worker then host", async () => {
      await s.addDocuments(['a', 'b', 'c'].map((h) => ({ url: `http://${h}.example/`, host: `${h}.example`, depth: 0 })));
      await s.flush();
      const all = { index: 0, count: 1 };
      const t = now();
      await s.leaseHosts('w2', all, 1, 1, t);
      await s.leaseHosts('w1', all, 60_000, 2, t);
      const reader = await fx.openReadOnly();
      const held = await reader.heldLeases(10);
      expect(held.map((l) => [l.worker, l.host, l.expiresAt])).toEqual([
        ['w1', 'b.example', t + 60_000], ['w1', 'c.example', t + 60_000], ['w2', 'a.example', t + 1],
      ]);
      await s.releaseHost('w1', 'b.example');
      expect((await reader.heldLeases(10)).map((l) => l.host)).toEqual(['c.example', 'a.example']);
      expect(await reader.heldLeases(1)).toHaveLength(1);
    });
  });
}
