import type { Quad } from '@rdfjs/types';
import { extract } from '../../extract/registry.ts';
import { headerMap } from '../capture.ts';
import type { Job, Next, Stage } from '../stages/types.ts';
import type { LdesStreams } from './streams.ts';

/**
 * A fetched page of a stream (`crawl --ldes`), after it was archived like any document: read for the stream
 * (LdesStreams), and not crawled for links: its relations are the links the stream means, and the member and
 * document IRIs it names are the stream's to give, not pages to fetch.
 */
export class LdesStage implements Stage {
  readonly name = 'ldes';
  constructor(private readonly streams: LdesStreams, private readonly o: { maxQuads: number; loadDocument?: (url: string) => Promise<unknown> }) {}

  shouldProcess(job: Job): boolean {
    return job.doc !== undefined && !job.entry.requisite && !job.entry.variant;
  }

  async process(job: Job): Promise<Next> {
    const doc = job.doc!;
    const url = job.entry.url;
    const r = job.outcome?.response;
    if (r?.notModified) {
      if (await this.streams.readArchived(url)) doc.links = [];
      return 'continue';
    }
    if (!r || doc.status !== 200) {
      if (this.streams.isPage(url)) {
        this.streams.failed(url, doc.error ?? `HTTP ${doc.status}`);
        doc.links = [];
      }
      return 'continue';
    }
    // A capture that found the same bytes or graph again did not keep its quads: a page of the stream is read all
    // the same (its JSON-LD contexts through the crawl's polite loader); any other document is not parsed twice.
    const parsed = (doc.change === 'new' || doc.change === 'changed') && doc.quads.length > 0;
    if (!parsed && !this.streams.isPage(url)) return 'continue';
    const quads: readonly Quad[] = parsed ? doc.quads : (await extract({ url: r.finalUrl, mediaType: r.mediaType, charset: r.charset, body: r.body, headers: headerMap(r) }, this.o)).quads;
    if (await this.streams.read(url, quads, { url, recordId: doc.record?.id, time: doc.time })) {
      doc.links = [];
      doc.requisites = undefined;
    }
    return 'continue';
  }
}
