/**
 * An archive's capacity document (GET /api/federation/capacity): how many URLs it monitors, how
 * many it is willing to monitor, its download budget, and so how much room it has for new URLs.
 * The aggregator weights the rendezvous assignment of new URLs (rendezvous.ts) by `free`.
 *
 * The operator states the capacity in `<data>/federation.json`, read on every request, so that it
 * can change without a restart:
 *
 *   { "capacity": 50000, "budgetPerCycle": 2000, "cycleMinutes": 60 }
 *
 * Without that file the archive takes no new URLs from the federation (free 0): a federation must
 * not fill an archive whose operator never said how much it can take.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { MetadataStore } from '../store/types.ts';
import { UserError } from '../util/errors.ts';

export const CAPACITY_FILE = 'federation.json';

export interface CapacityConfig {
  /** URLs this archive is willing to monitor in all. */
  capacity: number;
  /** Downloads per re-crawl cycle (informative: what keeps `capacity` URLs fresh). */
  budgetPerCycle?: number;
  cycleMinutes?: number;
}

export interface CapacityDocument {
  /** This archive's base URL as the client reached it: its id in the rendezvous assignment. */
  archive: string;
  configured: boolean;
  capacity: number;
  monitored: number;
  documents: number;
  hosts: number;
  /** max(0, capacity − monitored): the weight of this archive for new URLs. */
  free: number;
  budgetPerCycle: number | null;
  cycleMinutes: number | null;
  /** Whether POST /api/urls is open (the server has a write token) and there is room. */
  acceptsUrls: boolean;
  note?: string;
  endpoints: { timemap: string; timegate: string; holdings: string; submit: string };
}

const nonNegative = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The operator's statement, or undefined when there is none; a malformed file is a UserError saying what to fix. */
export function readCapacityConfig(dataDir: string): CapacityConfig | undefined {
  const file = path.join(dataDir, CAPACITY_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  let j: Record<string, unknown>;
  try {
    j = JSON.parse(text);
  } catch (e) {
    throw new UserError(`${file} is not JSON (${(e as Error).message}): write {"capacity": N} with N the URLs this archive may monitor`);
  }
  if (!j || typeof j !== 'object' || !nonNegative(j.capacity)) {
    throw new UserError(`${file} needs "capacity": a number >= 0 (the URLs this archive may monitor), e.g. {"capacity": 50000}`);
  }
  for (const k of ['budgetPerCycle', 'cycleMinutes'] as const) {
    if (j[k] !== undefined && !nonNegative(j[k])) throw new UserError(`${file}: "${k}" must be a number >= 0`);
  }
  return { capacity: j.capacity, budgetPerCycle: j.budgetPerCycle as number | undefined, cycleMinutes: j.cycleMinutes as number | undefined };
}

export async function capacityDocument(o: { dataDir: string; store: MetadataStore; base: string; writable: boolean }): Promise<CapacityDocument> {
  const config = readCapacityConfig(o.dataDir);
  const counts = await o.store.archiveCounts(Date.now());
  const capacity = config?.capacity ?? 0;
  const free = Math.max(0, capacity - counts.monitored);
  const notes: string[] = [];
  if (!config) notes.push(`no ${CAPACITY_FILE} in the data directory: this archive takes no new URLs (write {"capacity": N} there)`);
  if (!o.writable) notes.push('the server has no write token: it takes no new URLs (serve --token)');
  return {
    archive: o.base,
    configured: Boolean(config),
    capacity,
    monitored: counts.monitored,
    documents: counts.documents.total,
    hosts: counts.hosts,
    free,
    budgetPerCycle: config?.budgetPerCycle ?? null,
    cycleMinutes: config?.cycleMinutes ?? null,
    acceptsUrls: o.writable && free > 0,
    ...(notes.length ? { note: notes.join('; ') } : {}),
    endpoints: {
      timemap: `${o.base}/timemap/link/{url}`,
      timegate: `${o.base}/timegate/{url}`,
      holdings: `${o.base}/api/federation/holdings`,
      submit: `${o.base}/api/urls`,
    },
  };
}
