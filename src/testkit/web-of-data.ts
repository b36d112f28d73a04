import { startServer, type TestServer } from './server.ts';

/**
 * A small Web of Data bundled with datamonitor: people, projects and a vocabulary, published in
 * every serialisation the crawler reads, with a robots.txt, a 303 "see other" and a broken
 * document. The demo crawls it; tests use it as a realistic fixture.
 */

const PEOPLE = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank'];
const FORMATS = ['ttl', 'nt', 'rdf', 'jsonld', 'html', 'trig'] as const;

function pick<T>(arr: readonly T[], i: number): T {
  return arr[i % arr.length];
}

function personTurtle(base: string, name: string, i: number): string {
  const knows = [PEOPLE[(i + 1) % PEOPLE.length], PEOPLE[(i + 2) % PEOPLE.length]];
  return `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix ex: <${base}/vocab#> .
<${base}/people/${name}#me> a foaf:Person ;
  foaf:name "${name[0].toUpperCase()}${name.slice(1)}" ;
  ex:memberOf <${base}/projects/p${i % 3}> ;
${knows.map((k) => `  foaf:knows <${base}/people/${k}#me>`).join(' ;\n')} .
`;
}

function docFor(base: string, name: string, i: number): { type: string; body: string } {
  const fmt = pick(FORMATS, i);
  const knows = [PEOPLE[(i + 1) % PEOPLE.length], PEOPLE[(i + 2) % PEOPLE.length]];
  const me = `${base}/people/${name}#me`;
  const label = name[0].toUpperCase() + name.slice(1);
  const ntriples = [
    `<${me}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .`,
    `<${me}> <http://xmlns.com/foaf/0.1/name> "${label}" .`,
    `<${me}> <${base}/vocab#memberOf> <${base}/projects/p${i % 3}> .`,
    ...knows.map((k) => `<${me}> <http://xmlns.com/foaf/0.1/knows> <${base}/people/${k}#me> .`),
  ].join('\n') + '\n';
  switch (fmt) {
    case 'ttl':
      return { type: 'text/turtle', body: personTurtle(base, name, i) };
    case 'nt':
      return { type: 'application/n-triples', body: ntriples };
    case 'trig':
      return { type: 'application/trig', body: `<${base}/people/${name}> {\n${ntriples}}\n` };
    case 'rdf':
      return {
        type: 'application/rdf+xml',
        body: `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:foaf="http://xmlns.com/foaf/0.1/" xmlns:ex="${base}/vocab#">
  <foaf:Person rdf:about="${me}">
    <foaf:name>${label}</foaf:name>
    <ex:memberOf rdf:resource="${base}/projects/p${i % 3}"/>
${knows.map((k) => `    <foaf:knows rdf:resource="${base}/people/${k}#me"/>`).join('\n')}
  </foaf:Person>
</rdf:RDF>
`,
      };
    case 'jsonld':
      return {
        type: 'application/ld+json',
        body: JSON.stringify({
          '@context': { foaf: 'http://xmlns.com/foaf/0.1/', ex: `${base}/vocab#`, knows: { '@id': 'foaf:knows', '@type': '@id' }, memberOf: { '@id': 'ex:memberOf', '@type': '@id' } },
          '@id': me,
          '@type': 'foaf:Person',
          'foaf:name': label,
          memberOf: `${base}/projects/p${i % 3}`,
          knows: knows.map((k) => `${base}/people/${k}#me`),
        }, null, 2),
      };
    default:
      return {
        type: 'text/html; charset=utf-8',
        body: `<!DOCTYPE html>
<html><head><title>${label}'s page</title>
<meta name="description" content="Home page of ${label}">
<link rel="alternate" type="text/turtle" href="/people/${name}.ttl">
</head>
<body vocab="http://xmlns.com/foaf/0.1/" prefix="ex: ${base}/vocab#">
<div resource="${me}" typeof="Person"><h1 property="name">${label}</h1>
<p>Works on <a property="ex:memberOf" href="/projects/p${i % 3}">project ${i % 3}</a>.</p>
<p>Knows ${knows.map((k) => `<a property="knows" href="/people/${k}#me">${k}</a>`).join(' and ')}.</p>
</div></body></html>
`,
      };
  }
}

export interface WebOfData extends TestServer {
  /** The seed a crawl of it starts from. */
  seed: string;
}

export async function startWebOfData(): Promise<WebOfData> {
  let base = '';
  const server = await startServer((_req, res, url) => {
    const p = url.pathname;
    const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': type, ...headers });
      res.end(body);
    };
    if (p === '/robots.txt') return send(200, 'text/plain', 'User-agent: *\nDisallow: /private/\n');
    if (p === '/' || p === '/index.html') {
      return send(200, 'text/html; charset=utf-8', `<!DOCTYPE html><html><head><title>A small Web of Data</title></head><body>
<h1>People</h1><ul>${PEOPLE.map((n) => `<li><a href="/id/${n}">${n}</a></li>`).join('')}</ul>
<p><a href="/private/secret.ttl">not for crawlers</a> · <a href="/broken.ttl">a broken document</a></p></body></html>`);
    }
    const id = /^\/id\/(\w+)$/.exec(p);
    if (id && PEOPLE.includes(id[1])) {
      // Linked Data: the person is not a document; 303 to the document that describes them.
      res.writeHead(303, { location: `/people/${id[1]}` });
      return res.end();
    }
    const person = /^\/people\/(\w+)(?:\.ttl)?$/.exec(p);
    if (person && PEOPLE.includes(person[1])) {
      const i = PEOPLE.indexOf(person[1]);
      const d = p.endsWith('.ttl') ? { type: 'text/turtle', body: personTurtle(base, person[1], i) } : docFor(base, person[1], i);
      return send(200, d.type, d.body);
    }
    const project = /^\/projects\/p(\d)$/.exec(p);
    if (project) {
      return send(200, 'text/turtle', `@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix ex: <${base}/vocab#> .
<${base}/projects/p${project[1]}> a ex:Project ; dcterms:title "Project ${project[1]}" ;
  ex:lead <${base}/people/${PEOPLE[Number(project[1])]}#me> .
`);
    }
    if (p === '/vocab') {
      return send(200, 'text/turtle', `@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
<${base}/vocab#Project> a owl:Class ; rdfs:label "Project" .
<${base}/vocab#memberOf> a owl:ObjectProperty ; rdfs:label "member of" ; rdfs:range <${base}/vocab#Project> .
<${base}/vocab#lead> a owl:ObjectProperty ; rdfs:label "lead" .
`);
    }
    if (p === '/broken.ttl') return send(200, 'text/turtle', `<${base}/broken#a> <${base}/vocab#lead> <${base}/people/alice#me> .\n<${base}/broken#b> this is not turtle .\n`);
    if (p.startsWith('/private/')) return send(200, 'text/turtle', `<${base}/private/x> <${base}/vocab#secret> "crawlers must not see this" .\n`);
    send(404, 'text/plain', 'not found');
  });
  base = server.url;
  return Object.assign(server, { seed: `${server.url}/` });
}
