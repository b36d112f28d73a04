/**
 * Which archive of a federation takes a new URL (seed 000, section 2): capacity-weighted
 * rendezvous hashing (weighted highest-random-weight). Every archive scores the URL with
 * score = -capacity / ln(h), h = hash(url, archive) uniform in (0, 1), and the highest score wins.
 * Then the share of URLs an archive gets is capacity / total capacity, and an archive that joins
 * or leaves moves only the URLs it wins or held: nobody else's change hands. Any party can compute
 * the assignment from the published capacities alone, with no coordinator.
 */
import { fingerprint53 } from '../frontier/seen/fingerprint.ts';

export interface ArchiveCapacity {
  /** Stable identifier of the archive (its base URL, say); part of the hash, so never reuse one. */
  id: string;
  /** Relative capacity (URLs it can monitor, say); only ratios matter. 0 takes no new URLs. */
  capacity: number;
}

/** hash(url, archive) as a number uniform in the open interval (0, 1), from 53 bits of the fingerprint. */
export function unitHash(url: string, archiveId: string): number {
  return (fingerprint53(`${archiveId}\n${url}`) + 0.5) / 9007199254740992;
}

export function rendezvousScore(url: string, archive: ArchiveCapacity): number {
  return archive.capacity > 0 ? -archive.capacity / Math.log(unitHash(url, archive.id)) : 0;
}

function check(archives: readonly ArchiveCapacity[]): void {
  const ids = new Set<string>();
  for (const a of archives) {
    if (!(Number.isFinite(a.capacity) && a.capacity >= 0)) throw new RangeError(`archive '${a.id}' has capacity ${a.capacity}; it must be a finite number >= 0`);
    if (ids.has(a.id)) throw new RangeError(`archive '${a.id}' is listed twice`);
    ids.add(a.id);
  }
  if (!archives.some((a) => a.capacity > 0)) throw new RangeError('no archive has capacity > 0 to take new URLs');
}

/** The archives ordered by their score for `url`, best first: the owner, then replicas / fall-backs. */
export function rankArchives(url: string, archives: readonly ArchiveCapacity[]): ArchiveCapacity[] {
  check(archives);
  return archives
    .filter((a) => a.capacity > 0)
    .map((a) => ({ a, s: rendezvousScore(url, a) }))
    .sort((x, y) => y.s - x.s || (x.a.id < y.a.id ? -1 : 1))
    .map((x) => x.a);
}

/** The id of the archive that takes `url`. */
export function assignArchive(url: string, archives: readonly ArchiveCapacity[]): string {
  check(archives);
  let best: ArchiveCapacity | undefined;
  let bestScore = -Infinity;
  for (const a of archives) {
    if (a.capacity <= 0) continue;
    const s = rendezvousScore(url, a);
    if (s > bestScore || (s === bestScore && best && a.id < best.id)) {
      best = a;
      bestScore = s;
    }
  }
  return best!.id;
}

/** Groups URLs by the archive that takes them (every archive listed, possibly with none). */
export function assignAll(urls: Iterable<string>, archives: readonly ArchiveCapacity[]): Map<string, string[]> {
  check(archives);
  const out = new Map<string, string[]>(archives.map((a) => [a.id, []]));
  for (const url of urls) out.get(assignArchive(url, archives))!.push(url);
  return out;
}
