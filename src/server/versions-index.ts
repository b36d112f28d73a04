import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openVersionStore, VERSIONS_FILE, type VersionArchive } from '../query/index.ts';
import { versionQuads } from '../archive/export.ts';
import type { MetadataStore } from '../store/types.ts';

/**
 * The versioned store the SPARQL endpoint queries. When the crawler keeps `<data>/versions.sqlite`
 * (through its `onVersion` hook) the server opens it read-only. Otherwise (an archive crawled without that
 * hook) the server builds a private one in a temporary directory from the WARC conversion records the
 * crawl log points to, and replays new log entries before each query, so answers follow a running crawl.
 */
export class ArchiveIndex {
  private lastLogId = 0;
  private syncing: Promise<void> | undefined;
  readonly diagnostics: string[] = [];

  private constructor(
    private readonly dataDir: string,
    private readonly store: MetadataStore,
    readonly archive: VersionArchive,
    /** The temporary directory of a private store (removed on close); undefined for the crawler's own. */
    private readonly privateDir: string | undefined,
  ) {}

  static open(dataDir: string, store: MetadataStore): ArchiveIndex {
    if (fs.existsSync(path.join(dataDir, VERSIONS_FILE))) return new ArchiveIndex(dataDir, store, openVersionStore(dataDir, { readonly: true }), undefined);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'datamonitor-serve-'));
    return new ArchiveIndex(dataDir, store, openVersionStore(dir), dir);
  }

  /** Where the versions come from, for the dashboard and `serve`'s start-up line. */
  get source(): string {
    return this.privateDir ? `built from the WARC conversion records (no ${VERSIONS_FILE} in the data directory)` : this.archive.file;
  }

  /** The store, brought up to date with the crawl log first when it is the server's own. */
  async current(): Promise<VersionArchive> {
    if (this.privateDir) {
      // One replay at a time: concurrent requests wait for the same one.
      this.syncing ??= this.replay().finally(() => (this.syncing = undefined));
      await this.syncing;
    }
    return this.archive;
  }

  private async replay(): Promise<void> {
    const known = new Set(this.archive.graphs().map((g) => g.graph));
    for (const e of await this.store.log({ sinceId: this.lastLogId })) {
      this.lastLogId = Math.max(this.lastLogId, e.id ?? 0);
      const graph = e.finalUrl ?? e.url;
      try {
        if (e.rdfOffset !== undefined && e.warcFile) {
          await this.archive.putVersion(graph, e.time, versionQuads(this.dataDir, e, 'b'));
          known.add(graph);
        } else if ((e.status === 404 || e.status === 410) && known.has(graph)) {
          await this.archive.deleteGraph(graph, e.time);
          known.delete(graph);
        }
      } catch (err) {
        // A record that cannot be read costs that version, not the endpoint.
        if (this.diagnostics.length < 100) this.diagnostics.push(`log entry ${e.id} (${e.url}): ${(err as Error).message}`);
      }
    }
  }

  async close(): Promise<void> {
    await this.syncing?.catch(() => undefined);
    await this.archive.close();
    if (this.privateDir) fs.rmSync(this.privateDir, { recursive: true, force: true });
  }
}
