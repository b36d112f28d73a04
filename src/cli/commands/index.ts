import type { Command } from 'commander';

/**
 * Every CLI command, by the module that registers it. main.ts loads only the module of the command
 * being run (`datamonitor query` never loads the crawler, the server or the labs, and
 * `datamonitor --version` loads none): each module pulls in its part of the project (Oxigraph,
 * SQLite, fastify…), and loading all of them was most of a command's start-up. The other
 * commands are listed from what is written here, so `--help` still shows every one (and each module takes
 * its description from here: summaryOf);
 * test/cli/lazy-commands.test.ts checks that this matches what the modules register.
 */
export interface CommandModule {
  load: () => Promise<{ register: (program: Command) => void }>;
  /** What the module registers, as `datamonitor --help` lists it. */
  commands: CommandSummary[];
}

export interface CommandSummary {
  /** The words that name it: `query`, `lab recrawl`. */
  path: string;
  /** The options and arguments part of its help line: `[options] [query]`. */
  term: string;
  summary: string;
}

/** In the order `--help` lists them. */
export const commandModules: CommandModule[] = [
  {
    load: () => import('./crawl.ts'),
    commands: [
      { path: 'crawl', term: '[options] [seeds...]', summary: 'crawl Linked Data from seed URLs, archive every response, extract the RDF' },
    ],
  },
  {
    load: () => import('./export.ts'),
    commands: [
      { path: 'export', term: '[options]', summary: 'write the archived RDF (N-Quads with a graph per document, one Turtle file, or Prolog facts), or the archived WARC records (warc: imported ones byte for byte as their source held them)' },
    ],
  },
  {
    load: () => import('./demo.ts'),
    commands: [
      { path: 'demo', term: '[options]', summary: 'start a small bundled Web of Data on 127.0.0.1, crawl and archive it, print the summary' },
    ],
  },
  {
    load: () => import('./recrawl.ts'),
    commands: [
      { path: 'add', term: '[options] [urls...]', summary: 'monitor URLs: the re-crawl scheduler fetches them again and again, as often as they change' },
      { path: 'due', term: '[options]', summary: 'make monitored URLs due now: the next `run` fetches them whatever their strategy said (to test a strategy, or after a known change)' },
      { path: 'run', term: '[options]', summary: 'one cycle: schedule, plan, download, archive, re-schedule' },
      { path: 'daemon', term: '[options]', summary: 'run cycles at fixed intervals; a cycle never overlaps the previous one' },
    ],
  },
  {
    load: () => import('./stats.ts'),
    commands: [
      { path: 'stats', term: '[options]', summary: 'what the archive holds: documents, fetches, WARC files, monitored URLs, cycles; --estimates: crawl-time estimates against actual cycle times' },
    ],
  },
  {
    load: () => import('./log.ts'),
    commands: [
      { path: 'log', term: '[options]', summary: "each URL's fate from the crawl log, newest first: by default every failure, skip and redirect, and every capture with diagnostics (not plain fetched/unchanged captures); with --url, every row of that URL" },
    ],
  },
  {
    load: () => import('./sign.ts'),
    commands: [
      { path: 'sign', term: '[options] [document]', summary: 'sign an RDF document (Turtle, N-Triples, N-Quads, TriG, JSON-LD) with a W3C Data Integrity proof (eddsa-rdfc-2022, Ed25519 did:key); --generate-key FILE makes a key' },
      { path: 'verify-proof', term: '[options] <documents...>', summary: 'check the Data Integrity proofs of RDF documents: verified by key K, tampered, untrusted key, unknown cryptosuite, other canonical form; exit status 1 unless all verify' },
    ],
  },
  {
    load: () => import('./verify.ts'),
    commands: [
      { path: 'verify', term: '[options]', summary: 'fixity check: read back every archived capture and check its WARC record, digests and graph hash against the crawl log; exit status 1 when something is wrong' },
    ],
  },
  {
    load: () => import('./import.ts'),
    commands: [
      { path: 'import', term: '[options] <warc...>', summary: 'archive WARC files made elsewhere (Heritrix, wget, Browsertrix, another datamonitor): every record kept byte for byte, each HTTP response and revisit extracted, versioned and queryable like a crawled one; give the files oldest first' },
    ],
  },
  {
    load: () => import('./rebuild.ts'),
    commands: [
      { path: 'rebuild', term: '[options]', summary: "make a damaged or lost meta.sqlite and/or versions.sqlite again from the archive's WARC files (the damaged files are moved aside, not deleted); says what WARC files cannot bring back" },
    ],
  },
  {
    load: () => import('./query.ts'),
    commands: [
      { path: 'query', term: '[options] [query]', summary: 'SPARQL over the archive as it was at any time (each document in its named graph; default graph = their union), version queries and changes' },
    ],
  },
  {
    load: () => import('./diff.ts'),
    commands: [
      { path: 'diff', term: '[options] [url]', summary: 'the triples added (+) and removed (-) between two times, for one document or the whole archive' },
    ],
  },
  {
    load: () => import('./lab-ordering.ts'),
    commands: [
      { path: 'lab ordering', term: '[options]', summary: 'virtual crawls over a repository: how early each URL ordering (bfs, backlink, pagerank, location, similarity, random) finds the hot pages (seed 001)' },
    ],
  },
  {
    load: () => import('./lab-recrawl.ts'),
    commands: [
      { path: 'lab recrawl', term: '[options]', summary: 'simulate re-crawl strategies over change histories: recall and precision (seed 000, section 4)' },
    ],
  },
  {
    load: () => import('./lab-cache.ts'),
    commands: [
      { path: 'lab cache', term: '[options]', summary: 'miss ratio against cache size for random, static, LRU, CLOCK, MIN and infinite caches over a URL trace (seed 002)' },
    ],
  },
  {
    load: () => import('./lab-site.ts'),
    commands: [
      { path: 'lab site', term: '[options]', summary: "a large real site from Debian documentation packages, each under its own virtual host, with one generated portal page, and its breadth-first link stream as a URL trace (seeds 001 and 002)" },
    ],
  },
  {
    load: () => import('./lab-crawltime.ts'),
    commands: [
      { path: 'lab crawltime', term: '[options]', summary: "estimate, then run, batches of crawls over virtual hosts on 127.0.0.1: seed 000's heuristic and datamonitor's estimator against the actual crawl times (seed 000 Table 3)" },
    ],
  },
  {
    load: () => import('./lab-erdos.ts'),
    commands: [
      { path: 'lab erdos', term: '[options]', summary: "seed 003's Erdős-number benchmark: a generated scholarly Web on 127.0.0.1 crawled query-driven and breadth-first, every researcher's number by SPARQL against the ground truth, then a re-crawl after new papers and `query --at` the first crawl" },
    ],
  },
  {
    load: () => import('./lab-report.ts'),
    commands: [
      { path: 'lab report', term: '[options]', summary: "rerun the seeds' experiments (re-crawl, ordering, caching, crawl time) and write one HTML page: each claim, the lab's figures, a verdict" },
    ],
  },
  {
    load: () => import('./serve.ts'),
    commands: [
      { path: 'serve', term: '[options]', summary: 'serve the archive: SPARQL at /sparql, Memento (/timegate, /timemap, /memento), pages to browse at /replay, CDXJ at /cdx, the dashboard at /' },
    ],
  },
  {
    load: () => import('./worker.ts'),
    commands: [
      { path: 'worker', term: '[options]', summary: 'crawl as one of several workers sharing a store: lease hosts, crawl them, give them back, repeat' },
    ],
  },
  {
    load: () => import('./federate.ts'),
    commands: [
      { path: 'federate', term: '[options]', summary: 'serve several archives as one: merged TimeMap and TimeGate (/timemap, /timegate) that ask only archives that may hold the URL, and new URLs (POST /api/urls) handed to archives by capacity' },
    ],
  },
];

/**
 * A command's one-line description, as `--help` lists it with no command module loaded: each module's
 * `.description()` reads it from here, so the two cannot drift apart.
 */
export function summaryOf(path: string): string {
  for (const m of commandModules) for (const c of m.commands) if (c.path === path) return c.summary;
  throw new Error(`no summary for the command '${path}' in src/cli/commands/index.ts`);
}
