/**
 * The metadata store contracts on PostgreSQL: the shared `test` database at 127.0.0.1:5432, each test in
 * a fresh schema dropped after. Without a server these skip with a loud warning, unless
 * DATAMONITOR_REQUIRE_PG=1 (CI), which makes that a failure. Twice: writes in autocommit, and grouped in
 * batches (what `worker` opens).
 */
import { postgresBatchedStore, postgresBatchedWorkerStore, postgresStore, postgresWorkerStore } from './backends.ts';
import { storeContracts } from './index.ts';

storeContracts(postgresStore, postgresWorkerStore);
// What a worker opens: the same contracts with its writes waiting in batches.
storeContracts(postgresBatchedStore, postgresBatchedWorkerStore);
