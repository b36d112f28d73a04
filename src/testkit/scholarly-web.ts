import { startServer, type TestServer } from './server.ts';
import { rng } from './linked-data-web.ts';

/**
 * Seed 003's Erdős-number benchmark as a generated Web: papers spread over many hosts, each an HTML page
 * that says in RDF (RDFa, JSON-LD or microdata, in turn) what it is, who wrote it and what it cites, and
 * a page per researcher (Turtle) linking to their papers (`schema:subjectOf`; authorship is only in the papers). Co-authorship grows by preferential attachment
 * (prolific researchers gather co-authors, as in real collaboration graphs), citations prefer papers
 * cited often already; a third of citations name the paper's `/id/` IRI, which answers 303 See Other to
 * the page. Paul Erdős is researcher 0, on the first papers. `erdosNumbers()` is the ground truth: the
 * shortest co-authorship distance of every researcher to him (researchers with no path have none).
 * `grow(k)` adds k papers between two crawls, each joining a researcher far from Erdős with one close to him, so that some numbers shrink: what a re-crawl must notice. The
 * authors' pages then list the new papers; the server answers from the grown Web at once.
 * Served for many virtual hosts by one server on 127.0.0.1 (reach it through a forward proxy).
 */
export interface ScholarlyWebOptions {
  papers: number;
  /** Hosts the papers are spread over (default 8). */
  hosts?: number;
  /** Seed of the pseudo-random structure (default 1). */
  seed?: number;
  /**
   * Research fields (default 1): papers take turns among them, co-authors come from the paper's field
   * (Erdős works in the first), citations cross fields. A crawl that follows citations reaches the
   * other fields; co-authorship alone never leaves Erdős's.
   */
  fields?: number;
}

export const SCHEMA = 'http://schema.org/';
export const PEOPLE_HOST = 'people.scholar.test';

export interface Paper {
  authors: number[];
  cites: number[];
}


const SURNAMES = ['Erdős', 'Rényi', 'Turán', 'Pósa', 'Szemerédi', 'Lovász', 'Graham', 'Chung', 'Spencer', 'Bollobás', 'Alon', 'Füredi', 'Sós', 'Hajnal', 'Rado', 'Selfridge'];
const GIVEN = ['Paul', 'Alfréd', 'Pál', 'Lajos', 'Endre', 'László', 'Ronald', 'Fan', 'Joel', 'Béla', 'Noga', 'Zoltán', 'Vera', 'András', 'Richard', 'John'];

export function scholarlyWeb(o: ScholarlyWebOptions) {
  const hosts = o.hosts ?? 8;
  const r = rng((o.seed ?? 1) * 2654435761);
  const papers: Paper[] = [];
  const fields = o.fields ?? 1;
  const paperCount: number[] = [1]; // researcher 0 is Erdős
  const fieldOf: number[] = [0];
  const cited: number[] = [];
  const pick = (weights: number[]): number => {
    const total = weights.reduce((a, b) => a + b, 0);
    let x = r() * total;
    for (let i = 0; i < weights.length; i++) if ((x -= weights[i]) < 0) return i;
    return weights.length - 1;
  };
  for (let i = 0; i < o.papers; i++) {
    const k = 1 + Math.floor(r() * r() * 4);
    const field = i < 3 ? 0 : i % fields;
    const authors = new Set<number>(i < 3 ? [0] : []);
    while (authors.size < k) {
      if (r() < 0.3 || !fieldOf.includes(field)) authors.add((fieldOf.push(field), paperCount.push(0) - 1)); // a newcomer
      else authors.add(pick(paperCount.map((c, a) => (fieldOf[a] === field ? c + 1 : 0))));
    }
    for (const a of authors) paperCount[a]++;
    const cites = new Set<number>();
    for (let c = Math.min(i, 1 + Math.floor(r() * 3)); c > 0; c--) cites.add(pick(cited.map((n) => n + 1)));
    papers.push({ authors: [...authors], cites: [...cites] });
    cited.push(0);
    for (const c of cites) cited[c]++;
  }
  const host = (i: number) => `pubs${i % hosts}.scholar.test`;
  const paperUrl = (i: number) => `http://${host(i)}/paper/${i}`;
  const paperId = (i: number) => `http://${host(i)}/id/${i}`;
  const personDoc = (a: number) => `http://${PEOPLE_HOST}/person/${a}`;
  const person = (a: number) => `${personDoc(a)}#me`;
  const nameOf = (a: number) => (a === 0 ? 'Paul Erdős' : `${GIVEN[a % GIVEN.length]} ${SURNAMES[(a * 7) % SURNAMES.length]} ${a}`);
  const citationIri = (from: number, to: number) => ((from + to) % 3 === 0 ? paperId(to) : paperUrl(to));
  const papersOf = (a: number) => papers.flatMap((p, i) => (p.authors.includes(a) ? [i] : []));

  /** The ground truth: each researcher's Erdős number (absent: no co-authorship path to him). */
  const erdosNumbers = (): Map<number, number> => {
    const coauthors = Array.from({ length: paperCount.length }, () => new Set<number>());
    for (const p of papers) for (const a of p.authors) for (const b of p.authors) if (a !== b) coauthors[a].add(b);
    const out = new Map([[0, 0]]);
    for (let frontier = [0]; frontier.length;) {
      const next: number[] = [];
      for (const a of frontier) for (const b of coauthors[a]) if (!out.has(b)) (out.set(b, out.get(a)! + 1), next.push(b));
      frontier = next;
    }
    return out;
  };

  /**
   * Adds `count` papers (the same seed, the same papers): each has a researcher at distance ≥ 3 from
   * Erdős and one at distance ≤ 1 (Erdős himself for a researcher at 2, the only way to shorten that),
   * sometimes a newcomer, and cites one or two papers. Returns the new papers' numbers.
   */
  const grow = (count: number): number[] => {
    const added: number[] = [];
    for (let j = 0; j < count; j++) {
      const numbers = erdosNumbers();
      const all = Array.from({ length: paperCount.length }, (_, a) => a);
      const far3 = all.filter((a) => (numbers.get(a) ?? 0) >= 3);
      const far = far3.length ? far3 : all.filter((a) => (numbers.get(a) ?? 0) >= 2);
      if (far.length === 0) break; // everyone is Erdős or his co-author: nothing to shorten
      const a = far[Math.floor(r() * far.length)]!;
      const close = all.filter((b) => (numbers.get(a) === 2 ? b === 0 : (numbers.get(b) ?? Infinity) <= 1));
      const b = close[Math.floor(r() * close.length)]!;
      const authors = [a, b];
      if (r() < 0.5) authors.push((fieldOf.push(fieldOf[a]!), paperCount.push(0) - 1));
      for (const x of authors) paperCount[x]++;
      const i = papers.length;
      const cites = new Set<number>();
      for (let c = 1 + Math.floor(r() * 2); c > 0; c--) cites.add(Math.floor(r() * i));
      papers.push({ authors, cites: [...cites] });
      cited.push(0);
      for (const c of cites) cited[c]++;
      added.push(i);
    }
    return added;
  };

  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  const paperHtml = (i: number): string => {
    const p = papers[i];
    const title = `On problem ${i} of combinatorics`;
    const format = i % 3;
    let body: string;
    if (format === 0) {
      // RDFa
      body = `<article vocab="${SCHEMA}" resource="${paperUrl(i)}" typeof="ScholarlyArticle">
<h1 property="name">${esc(title)}</h1>
<p>By ${p.authors.map((a) => `<a property="author" href="${person(a)}">${esc(nameOf(a))}</a>`).join(', ')}</p>
<h2>Bibliography</h2><ol>${p.cites.map((c) => `<li><a property="citation" href="${citationIri(i, c)}">Paper ${c}</a></li>`).join('')}</ol>
</article>`;
    } else if (format === 1) {
      const data = {
        '@context': { '@vocab': SCHEMA, author: { '@type': '@id' }, citation: { '@type': '@id' } },
        '@id': paperUrl(i), '@type': 'ScholarlyArticle', name: title,
        author: p.authors.map(person), citation: p.cites.map((c) => citationIri(i, c)),
      };
      body = `<script type="application/ld+json">${JSON.stringify(data)}</script>
<h1>${esc(title)}</h1><p>By ${p.authors.map((a) => `<a href="${person(a)}">${esc(nameOf(a))}</a>`).join(', ')}</p>
<h2>Bibliography</h2><ol>${p.cites.map((c) => `<li><a href="${citationIri(i, c)}">Paper ${c}</a></li>`).join('')}</ol>`;
    } else {
      // Microdata: itemid gives the IRIs; properties expand in the schema.org vocabulary.
      body = `<article itemscope itemtype="${SCHEMA}ScholarlyArticle" itemid="${paperUrl(i)}">
<h1 itemprop="name">${esc(title)}</h1>
<p>By ${p.authors.map((a) => `<span itemprop="author" itemscope itemtype="${SCHEMA}Person" itemid="${person(a)}"><a href="${person(a)}"><span itemprop="name">${esc(nameOf(a))}</span></a></span>`).join(', ')}</p>
<h2>Bibliography</h2><ol>${p.cites.map((c) => `<li><a itemprop="citation" href="${citationIri(i, c)}">Paper ${c}</a></li>`).join('')}</ol>
</article>`;
    }
    return `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${esc(title)}</title></head><body>\n${body}\n</body></html>\n`;
  };
  const personTurtle = (a: number): string =>
    `@prefix schema: <${SCHEMA}> .\n<${person(a)}> a schema:Person ; schema:name "${nameOf(a)}" .\n` +
    // Their papers by link only: who wrote a paper is said by the paper's own page (RDFa, JSON-LD or microdata).
    papersOf(a).map((i) => `<${person(a)}> schema:subjectOf <${paperUrl(i)}> .\n`).join('');

  return {
    papers,
    /** Researchers so far (grows with `grow`); researcher 0 is Erdős. */
    get researchers(): number {
      return paperCount.length;
    },
    fieldOf: (a: number) => fieldOf[a]!,
    paperUrl, paperId, person, personDoc, nameOf, erdosNumbers, grow, paperHtml, personTurtle, host, hosts,
  };
}

export interface ScholarlyWeb extends TestServer {
  web: ReturnType<typeof scholarlyWeb>;
  /** Erdős's own page: the seed of a crawl. */
  seed: string;
  hostNames(): string[];
}

export async function startScholarlyWeb(o: ScholarlyWebOptions): Promise<ScholarlyWeb> {
  const web = scholarlyWeb(o);
  const server = await startServer((req, res, url) => {
    const target = /^https?:\/\//.test(req.url ?? '') ? new URL(req.url as string) : url;
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    if (target.pathname === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nAllow: /\n');
    const person = /^\/person\/(\d+)$/.exec(target.pathname);
    if (target.hostname === PEOPLE_HOST && person && Number(person[1]) < web.researchers) return send(200, 'text/turtle', web.personTurtle(Number(person[1])));
    const paper = /^\/(paper|id)\/(\d+)$/.exec(target.pathname);
    const i = paper ? Number(paper[2]) : -1;
    if (paper && i < web.papers.length && web.host(i) === target.hostname) {
      if (paper[1] === 'id') return send(303, 'text/plain', 'see other', { location: web.paperUrl(i) });
      return send(200, 'text/html; charset=utf-8', web.paperHtml(i));
    }
    return send(404, 'text/plain', 'not found');
  });
  return {
    ...server,
    web,
    seed: web.personDoc(0),
    hostNames: () => [PEOPLE_HOST, ...Array.from({ length: web.hosts }, (_, h) => `pubs${h}.scholar.test`)],
  };
}
