/**
 * Each case of the fault kit (src/testkit/faults) as a test: a real crawl of the hostile URL beside a
 * healthy host, and what a user would check afterwards. One list of problems per case, so a failure
 * says everything that went wrong at once (hung, wrong reason, healthy host starved, verify).
 */
import { describe, expect, it } from 'vitest';
import { FAULT_CASES, faultProblems, runFaultCase, type FaultGroup } from '../../src/testkit/faults/index.ts';
import { tempDir } from '../helpers.ts';

/**
 * A fixed crawl of these cases ends in a few seconds on an idle machine; a hang never ends. The bound
 * only has to tell the two apart, so it is far above any loaded machine's time (many-links took over
 * 20 s beside a full CI run on 2 cores, #14) and costs nothing unless the crawl really hangs.
 */
export const BOUND_MS = 120_000;
/**
 * Growth of the test process's RSS a case may cause: bounded, not small. It counts the heaps of the
 * analysis threads a large page goes to (many-links' 100,000-link page grows it by 320–330 MiB, near
 * the old 300 MiB line, so the check flickered with the machine's load); a runaway grows by gigabytes.
 */
const RSS_LIMIT = 450 * 1024 * 1024;

export function describeFaults(group: FaultGroup): void {
  describe(`fault kit: ${group}`, () => {
    for (const c of FAULT_CASES.filter((x) => x.group === group)) {
      it(`${c.name}: ${c.about}`, async () => {
        const r = await runFaultCase(c, tempDir(`dm-fault-${c.name}-`), { scale: 'test', boundMs: BOUND_MS });
        // The parts a user checks, each on its own so the report names them; then everything at once.
        expect(faultProblems(r, RSS_LIMIT), `${c.name}: fates seen ${JSON.stringify(r.fates.map((f) => f.slice(0, 120)))}`).toEqual([]);
        expect(r.ended).toBe(true);
        expect(r.healthy.missing).toEqual([]);
        expect(r.verify.ok).toBe(true);
      }, BOUND_MS + 40_000);
    }
  });
}
