// Boots a worker thread that runs a TypeScript module (tsx's loader), as bin/datamonitor.mjs does
// for the main thread: `new Worker(TS_WORKER, { workerData: { entry: moduleUrl, ... } })`.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
