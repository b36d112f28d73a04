import type http from 'node:http';
import { startServer, type TestServer } from '../../src/testkit/server.ts';

/**
 * A Linked Data Event Stream shaped like a third-party one (the VSDS LDES server's, the Flemish address
 * registry's): members in the default graph, each `<member> ex:versionOf <entity>; dct:modified <time>` plus
 * the entity's own data (labels in two languages, an address as a blank node, links to DBpedia and Wikidata),
 * the entities on the stream's own host (served as small documents of their own),
 * the stream declaring its own paths (ldes:versionOfPath ex:versionOf, ldes:timestampPath dct:modified, a
 * deletion as `ex:status ex:Removed`), a view whose pages link on with tree:GreaterThanOrEqualToRelation and
 * tree:GreaterThanRelation on dct:modified, closed pages `Cache-Control: immutable`, the latest page not.
 * Pages are Turtle but one, JSON-LD. One page answers 500 once, one hangs once, one relation leads to a 404,
 * one to a page robots.txt disallows.
 */
export interface LdesFixture extends TestServer {
  /** The view to give `crawl --ldes`. */
  view: string;
  /** The stream's IRI: a page with its description and its view. */
  stream: string;
  /** GETs of each page path, counted. */
  hits(path: string): number;
  /** Members added to the latest page (a publisher's new changes). */
  publish(members: string): void;
  entity(n: number): string;
}

const PREFIXES = `@prefix tree: <https://w3id.org/tree#> .
@prefix ldes: <https://w3id.org/ldes#> .
@prefix dct: <http://purl.org/dc/terms/> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix schema: <http://schema.org/> .
@prefix ex: <http://data.example.org/ns#> .
`;

/** A member (a version of building `n` at `time`) with its data, in the default graph, as Turtle. */
export function buildingMember(base: string, n: number, time: string, name: string, street: string, extra = ''): string {
  const entity = `${base}/id/building/${n}`;
  return `<${base}/ldes/buildings> tree:member <${entity}/${time}> .
<${entity}/${time}> a schema:LandmarksOrHistoricalBuildings ; ex:versionOf <${entity}> ; dct:modified "${time}"^^xsd:dateTime ;
  rdfs:label "${name}"@en, "${name} (nl)"@nl ;
  schema:address [ a schema:PostalAddress ; schema:streetAddress "${street}" ; schema:addressLocality "Gent" ; schema:postalCode "9000" ] ;
  schema:sameAs <http://dbpedia.org/resource/Building_${n}>, <http://www.wikidata.org/entity/Q${1000 + n}> ${extra}.
`;
}

export async function startLdesFixture(): Promise<LdesFixture> {
  const counts = new Map<string, number>();
  const hanging: http.ServerResponse[] = [];
  let latest = '';
  let base = '';
  const turtle = (res: http.ServerResponse, body: string, immutable: boolean) =>
    res.writeHead(200, { 'content-type': 'text/turtle; charset=utf-8', 'cache-control': immutable ? 'public, max-age=604800, immutable' : 'public, max-age=60' }).end(PREFIXES + body);
  const relation = (from: string, type: string, value: string, to: string) =>
    `<${base}${from}> tree:relation [ a tree:${type} ; tree:path dct:modified ; tree:value "${value}"^^xsd:dateTime ; tree:node <${base}${to}> ] .\n`;
  const server = await startServer((_req, res, url) => {
    const n = (counts.get(url.pathname) ?? 0) + 1;
    counts.set(url.pathname, n);
    switch (url.pathname) {
      case '/robots.txt':
        return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /admin/\n');
      case '/ldes/buildings':
        // The stream itself, as a VSDS server describes it: its paths and its view, no members.
        return turtle(res, `<${base}/ldes/buildings> a ldes:EventStream ; ldes:versionOfPath ex:versionOf ; ldes:timestampPath dct:modified ;
  ldes:versionDeletePath ex:status ; ldes:versionDeleteObject ex:Removed ; tree:view <${base}/ldes/buildings/by-time> .`, false);
      case '/ldes/buildings/by-time':
        return turtle(res, `<${base}/ldes/buildings> a ldes:EventStream ; ldes:versionOfPath ex:versionOf ; ldes:timestampPath dct:modified ;
  ldes:versionDeletePath ex:status ; ldes:versionDeleteObject ex:Removed ; tree:view <${base}/ldes/buildings/by-time> .
<${base}/ldes/buildings/by-time> a tree:Node .
${relation('/ldes/buildings/by-time', 'GreaterThanOrEqualToRelation', '2024-01-01T00:00:00Z', '/ldes/buildings/by-time/2024-01')}`, false);
      case '/ldes/buildings/by-time/2024-01':
        return turtle(res, `<${base}/ldes/buildings/by-time/2024-01> a tree:Node .
${relation('/ldes/buildings/by-time/2024-01', 'GreaterThanRelation', '2024-01-31T23:59:59Z', '/ldes/buildings/by-time/2024-02')}
${relation('/ldes/buildings/by-time/2024-01', 'GreaterThanRelation', '2024-01-31T23:59:59Z', '/ldes/buildings/by-time/2024-02-old')}
${buildingMember(base, 1, '2024-01-03T10:00:00Z', 'Town hall', 'Botermarkt 1')}
${buildingMember(base, 2, '2024-01-05T08:30:00Z', 'Belfry', 'Sint-Baafsplein')}
${buildingMember(base, 4, '2024-01-10T14:00:00Z', 'Old post office', 'Graslei 16')}
${buildingMember(base, 1, '2024-01-20T12:00:00Z', 'City hall', 'Botermarkt 1')}`, true);
      case '/ldes/buildings/by-time/2024-02':
        // JSON-LD, and a 500 on its first request (a server restarting).
        if (n === 1) return res.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
        return res.writeHead(200, { 'content-type': 'application/ld+json', 'cache-control': 'public, max-age=604800, immutable' }).end(JSON.stringify(februaryJsonLd(base)));
      case '/ldes/buildings/by-time/2024-03':
        // Hangs on its first request; the crawl's timeout gives it up and its retry gets the page.
        if (n === 1) return void hanging.push(res);
        return turtle(res, `<${base}/ldes/buildings/by-time/2024-03> a tree:Node .
${relation('/ldes/buildings/by-time/2024-03', 'GreaterThanOrEqualToRelation', '2024-04-01T00:00:00Z', '/ldes/buildings/by-time/latest')}
${relation('/ldes/buildings/by-time/2024-03', 'GreaterThanOrEqualToRelation', '2024-04-01T00:00:00Z', '/admin/ldes/drafts')}
${buildingMember(base, 2, '2024-03-02T09:00:00Z', 'Belfry', 'Sint-Baafsplein')}
${buildingMember(base, 3, '2024-03-10T16:45:00Z', 'Castle of the Counts', 'Sint-Veerleplein 11', '; schema:openingHours "Mo-Su 10:00-18:00" ')}
<${base}/ldes/buildings> tree:member <${base}/id/building/4/2024-03-20T00:00:00Z> .
<${base}/id/building/4/2024-03-20T00:00:00Z> ex:versionOf <${base}/id/building/4> ; dct:modified "2024-03-20T00:00:00Z"^^xsd:dateTime ; ex:status ex:Removed .`, true);
      case '/ldes/buildings/by-time/latest':
        return turtle(res, `<${base}/ldes/buildings/by-time/latest> a tree:Node .\n${latest}`, false);
      default:
        // The entities themselves are documents too (a crawl or a re-crawl cycle may fetch them by name).
        if (/^\/id\/building\/\d+$/.test(url.pathname)) return turtle(res, `<${base}${url.pathname}> rdfs:label "building" .`, false);
        return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  base = server.url;
  return {
    ...server,
    view: `${base}/ldes/buildings/by-time`,
    stream: `${base}/ldes/buildings`,
    hits: (path) => counts.get(path) ?? 0,
    publish: (members) => void (latest += members),
    entity: (n) => `${base}/id/building/${n}`,
    close: async () => {
      for (const res of hanging) res.destroy();
      await server.close();
    },
  };
}

/** The February page as a JSON-LD publisher writes it: an inline context, @graph, typed values. */
function februaryJsonLd(base: string): unknown {
  const member = (n: number, time: string, name: string) => ({
    '@id': `${base}/id/building/${n}/${time}`,
    '@type': 'schema:LandmarksOrHistoricalBuildings',
    'ex:versionOf': { '@id': `${base}/id/building/${n}` },
    'dct:modified': { '@value': time, '@type': 'xsd:dateTime' },
    'rdfs:label': [{ '@value': name, '@language': 'en' }, { '@value': `${name} (nl)`, '@language': 'nl' }],
    'schema:address': { '@type': 'schema:PostalAddress', 'schema:streetAddress': 'Sint-Veerleplein 11', 'schema:addressLocality': 'Gent', 'schema:postalCode': '9000' },
    'schema:sameAs': [{ '@id': `http://dbpedia.org/resource/Building_${n}` }, { '@id': `http://www.wikidata.org/entity/Q${1000 + n}` }],
  });
  return {
    '@context': { tree: 'https://w3id.org/tree#', dct: 'http://purl.org/dc/terms/', xsd: 'http://www.w3.org/2001/XMLSchema#', rdfs: 'http://www.w3.org/2000/01/rdf-schema#', schema: 'http://schema.org/', ex: 'http://data.example.org/ns#' },
    '@graph': [
      { '@id': `${base}/ldes/buildings/by-time/2024-02`, '@type': 'tree:Node', 'tree:relation': { '@type': 'tree:GreaterThanRelation', 'tree:path': { '@id': 'dct:modified' }, 'tree:value': { '@value': '2024-02-29T23:59:59Z', '@type': 'xsd:dateTime' }, 'tree:node': { '@id': `${base}/ldes/buildings/by-time/2024-03` } } },
      { '@id': `${base}/ldes/buildings`, 'tree:member': [{ '@id': `${base}/id/building/3/2024-02-14T11:00:00Z` }] },
      member(3, '2024-02-14T11:00:00Z', 'Castle of the Counts'),
    ],
  };
}
