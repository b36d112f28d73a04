/**
 * Every contract of the metadata store, per interface (docs/store.md). A backend passes them all to be
 * a MetadataStore; with a worker maker, also LeaseStore (a WorkerStore, for `datamonitor worker`).
 */
import type { MetadataStore } from '../../../src/store/types.ts';
import type { WorkerStore } from '../../../src/store/worker-types.ts';
import type { StoreMaker } from './harness.ts';
import { storeLifecycleContract } from './lifecycle.ts';
import { documentStoreContract } from './documents.ts';
import { crawlLogContract } from './crawl-log.ts';
import { readModelContract } from './read-model.ts';
import { cycleStoreContract, hostStoreContract } from './hosts-cycles.ts';
import { leaseStoreContract } from './leases.ts';

export { storeLifecycleContract, documentStoreContract, crawlLogContract, readModelContract, hostStoreContract, cycleStoreContract, leaseStoreContract };
export type { StoreEnv, StoreMaker } from './harness.ts';

export function storeContracts(make: StoreMaker<MetadataStore>, worker?: StoreMaker<WorkerStore>): void {
  storeLifecycleContract(make);
  documentStoreContract(make);
  crawlLogContract(make);
  readModelContract(make);
  hostStoreContract(make);
  cycleStoreContract(make);
  if (worker) leaseStoreContract(worker);
}
