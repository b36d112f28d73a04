import type { Command } from 'commander';
import { register as crawl } from './crawl.ts';
import { register as exportCmd } from './export.ts';
import { register as demo } from './demo.ts';
import { register as recrawl } from './recrawl.ts';
import { register as query } from './query.ts';
import { register as diff } from './diff.ts';
import { register as labOrdering } from './lab-ordering.ts';
import { register as labRecrawl } from './lab-recrawl.ts';
import { register as labCache } from './lab-cache.ts';
import { register as labCrawltime } from './lab-crawltime.ts';
import { register as serve } from './serve.ts';
import { register as worker } from './worker.ts';
import { register as stats } from './stats.ts';
import { register as verify } from './verify.ts';
import { register as importCmd } from './import.ts';
import { register as log } from './log.ts';
import { register as federate } from './federate.ts';

/** Every CLI command registers itself here; main.ts wires them into one program. */
export const commands: Array<(program: Command) => void> = [
  crawl,
  exportCmd,
  demo,
  recrawl,
  stats,
  log,
  verify,
  importCmd,
  query,
  diff,
  labOrdering,
  labRecrawl,
  labCache,
  labCrawltime,
  serve,
  worker,
  federate,
];
