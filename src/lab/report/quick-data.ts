/**
 * Small built-in data for `lab report --quick` (CI, or no ../shared here): a documentation-like site
 * and Poisson change histories, both generated and deterministic. Verdicts on them say something
 * about the code, not about the Web: the report labels every claim with the data it ran on.
 */
import { rng } from '../cache/synthetic-trace.ts';
import type { RepositoryGraph, RepositoryPage } from '../ordering/graph.ts';
import type { HistoryRecord } from '../recrawl/histories.ts';
import { DAY } from '../../schedule/types.ts';

const FILLER = 'server client table query index data system option value file user row column'.split(' ');

export interface QuickSiteOptions {
  /** Parts under the home page (default 6), chapters per part (default 5), pages per chapter (default 8). */
  parts?: number;
  chapters?: number;
  pages?: number;
  /** The topic word of the keyword rule, planted in some pages (default "vacuum"). */
  topic?: string;
  seed?: number;
}

/**
 * A manual: home → parts → chapters → pages, each page linking Up, Home, Prev and Next, plus a few
 * cross references drawn towards a handful of popular pages (how manuals cite their core chapters).
 * One part is about the topic: its pages carry the topic word often, and a few pages elsewhere
 * mention it in their title.
 */
export function quickSite(o: QuickSiteOptions = {}): RepositoryGraph {
  const random = rng(o.seed ?? 7);
  const topic = o.topic ?? 'vacuum';
  const base = 'http://manual.test/';
  const pages: RepositoryPage[] = [];
  const add = (url: string, title: string, text: string) => {
    const p: RepositoryPage = { url, title, text, links: [] };
    pages.push(p);
    return p;
  };
  const words = (n: number, extra?: string, every = 0) =>
    Array.from({ length: n }, (_, i) => (extra && every && i % every === 0 ? extra : FILLER[Math.floor(random() * FILLER.length)])).join(' ');
  const home = add(`${base}index.html`, 'The Manual', words(60));
  const parts = o.parts ?? 6, chapters = o.chapters ?? 5, perChapter = o.pages ?? 8;
  const topicPart = Math.min(parts - 1, 3); // deep in the table of contents, as in a real manual
  const leaves: RepositoryPage[] = [];
  for (let a = 0; a < parts; a++) {
    const onTopic = a === topicPart;
    const part = add(`${base}part${a}.html`, `Part ${a}${onTopic ? ` ${topic}` : ''}`, words(40));
    home.links.push({ url: part.url, anchorText: part.title });
    part.links.push({ url: home.url, anchorText: 'Home' });
    for (let c = 0; c < chapters; c++) {
      const ch = add(`${base}p${a}-c${c}.html`, `Chapter ${a}.${c}`, words(80, onTopic ? topic : undefined, 5));
      part.links.push({ url: ch.url, anchorText: ch.title });
      ch.links.push({ url: part.url, anchorText: 'Up' }, { url: home.url, anchorText: 'Home' });
      let prev: RepositoryPage = ch;
      for (let s = 0; s < perChapter; s++) {
        const mentions = onTopic ? 12 + Math.floor(random() * 10) : random() < 0.03 ? 1 : 0;
        const titled = !onTopic && random() < 0.02;
        const pg = add(`${base}p${a}-c${c}-s${s}.html`, `Section ${a}.${c}.${s}${titled ? ` ${topic}` : ''}`, `${words(150)} ${Array(mentions).fill(topic).join(' ')}`);
        ch.links.push({ url: pg.url, anchorText: pg.title });
        pg.links.push({ url: ch.url, anchorText: 'Up' }, { url: home.url, anchorText: 'Home' }, { url: prev.url, anchorText: 'Prev' });
        prev.links.push({ url: pg.url, anchorText: 'Next' });
        prev = pg;
        leaves.push(pg);
      }
    }
  }
  // Cross references: most point at a few core pages (skewed), some anywhere.
  const core = leaves.filter((_, i) => i % 17 === 0);
  for (const pg of leaves) {
    const n = 1 + Math.floor(random() * 3);
    for (let k = 0; k < n; k++) {
      const target = random() < 0.7 ? core[Math.floor(random() * core.length)] : leaves[Math.floor(random() * leaves.length)];
      if (target !== pg) pg.links.push({ url: target.url, anchorText: target.title });
    }
  }
  return { pages, start: home.url };
}

/**
 * Change histories of `documents` pages observed for 3 years, each a Poisson process whose mean
 * interval is drawn log-uniformly from 1 day to 1 year (every band of seed 000's Table 2 gets some).
 */
export function quickHistories(documents = 300, seed = 3): HistoryRecord[] {
  const random = rng(seed);
  const start = Date.UTC(2020, 0, 1);
  const end = start + 3 * 365 * DAY;
  const out: HistoryRecord[] = [];
  for (let d = 0; d < documents; d++) {
    const mean = DAY * Math.exp(random() * Math.log(365));
    const changes: number[] = [];
    for (let t = start - mean * Math.log(1 - random()); t < end; t -= mean * Math.log(1 - random())) changes.push(t);
    out.push({ id: `doc-${d}`, source: 'generated', created: start, end, changes });
  }
  return out;
}
