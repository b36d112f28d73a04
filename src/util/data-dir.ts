/**
 * The names of a data directory's (`--data`) SQLite files, which the store, the query side, rebuild
 * and the commands all find there. Both are indexes of the WARC files beside them.
 */

/** The metadata store (crawl log, documents, frontier) when no --db names a database. */
export const META_FILE = 'meta.sqlite';

/** The versioned store, built from the crawl log's conversion records (src/query/catch-up.ts). */
export const VERSIONS_FILE = 'versions.sqlite';
