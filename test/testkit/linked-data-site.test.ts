import type { Quad } from '@rdfjs/types';
import { Parser } from 'n3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crawl } from '../../src/crawler/crawl.ts';
import { startLinkedDataSite, type LinkedDataSite } from '../../src/testkit/linked-data-site.ts';
import { generatedVocabulary, schemaOrgVocabulary } from '../../src/testkit/real-vocabulary.ts';
import { crawlLog, tempDir } from '../helpers.ts';

/** The crawl bench's site must look like what issue 16 measured against: a shape a test can hold it to. */
describe('the crawl bench site: documents shaped like real Linked Data on several hosts', () => {
  const DOCS = 60;
  let site: LinkedDataSite;
  beforeAll(async () => {
    site = await startLinkedDataSite({ documents: DOCS, hosts: 6, vocabulary: generatedVocabulary() });
  });
  afterAll(() => site.close());

  const fetchDoc = async (i: number): Promise<{ quads: Quad[]; type: string | null }> => {
    const res = await fetch(site.documentUrl(i));
    return { quads: new Parser({ baseIRI: site.documentUrl(i) }).parse(await res.text()) as Quad[], type: res.headers.get('content-type') };
  };

  it('serves about 35 triples a document, one blank node, ten links to other documents, two vocabularies besides RDF(S)', async () => {
    for (const i of [0, 1, 17, DOCS - 1]) {
      const { quads, type } = await fetchDoc(i);
      expect(type).toMatch(/^text\/turtle/);
      expect(quads.length).toBeGreaterThanOrEqual(28);
      expect(quads.length).toBeLessThanOrEqual(40);
      const blanks = new Set(quads.flatMap((q) => [q.subject, q.object]).filter((t) => t.termType === 'BlankNode').map((t) => t.value));
      expect(blanks.size).toBe(1);
      const me = site.documentUrl(i);
      const linked = new Set(quads.filter((q) => q.object.termType === 'NamedNode' && q.object.value.startsWith('http://127.0.0.1:')).map((q) => q.object.value.replace(/#.*/, '')).filter((u) => u !== me));
      expect(linked.size).toBe(10);
      const otherHosts = [...linked].filter((u) => new URL(u).host !== new URL(me).host);
      expect(otherHosts.length).toBeGreaterThanOrEqual(5);
      const namespaces = new Set(quads.map((q) => q.predicate.value.replace(/[^/#]*$/, '')));
      expect(namespaces).toContain('http://purl.org/dc/terms/');
      expect(namespaces).toContain('http://vocab.example.org/ns#');
    }
  });

  it('a crawl from the seed archives every document, each a new version with its graph', async () => {
    const dataDir = tempDir();
    const s = await crawl({ seeds: [site.seed], dataDir, delayMs: 0, perHost: 4, concurrency: 16, allowPrivate: true, vocabularies: false, domains: ['127.0.0.1'] }).run();
    expect(s.documents).toBe(DOCS);
    expect(s.errors).toBe(0);
    const docs = crawlLog(dataDir).filter((e) => /\/doc\/\d+$/.test(e.url));
    expect(new Set(docs.map((e) => e.url)).size).toBe(DOCS);
    expect(docs.every((e) => e.change === 'new' && e.triples >= 28)).toBe(true);
  });
});

describe('terms drawn from a schema.org release', () => {
  const S = 'http://schema.org/';
  const release = [
    ...['name', 'description', 'email', 'telephone', 'birthDate', 'height', 'isFamilyFriendly'].map((p, k) =>
      `<${S}${p}> <${S}domainIncludes> <${S}Person> <${S}30.0> .\n<${S}${p}> <${S}rangeIncludes> <${S}${['Text', 'Text', 'Text', 'Text', 'Date', 'Number', 'Boolean'][k]}> <${S}30.0> .`),
    ...['streetAddress', 'postalCode', 'addressLocality'].map((p) => `<${S}${p}> <${S}domainIncludes> <${S}PostalAddress> <${S}30.0> .\n<${S}${p}> <${S}rangeIncludes> <${S}Text> <${S}30.0> .`),
    `<${S}knows> <${S}domainIncludes> <${S}Thing> <${S}30.0> .\n<${S}knows> <${S}rangeIncludes> <${S}Person> <${S}30.0> .`,
    `<${S}Person> <http://www.w3.org/2000/01/rdf-schema#comment> "A person (alive, dead, undead, or fictional), with a tab\\there and \\"quotes\\"." <${S}30.0> .`,
  ].join('\n');

  it('takes classes with their literal properties, link properties and prose, unescaped', () => {
    const v = schemaOrgVocabulary(release, '30.0');
    expect(v.source).toBe('schema.org');
    expect(v.classes.map((c) => c.iri)).toEqual([`${S}Person`]);
    expect(v.classes[0]!.literalProperties.map((p) => p.range)).toEqual(['date', 'text', 'text', 'number', 'boolean', 'text', 'text']) // birthDate, description, email, height, isFamilyFriendly, name, telephone;
    expect(v.linkProperties).toEqual([`${S}knows`]);
    expect(v.nested.class.literalProperties.map((p) => p.iri)).toEqual([`${S}addressLocality`, `${S}postalCode`, `${S}streetAddress`]);
    expect(v.texts).toEqual(['A person (alive, dead, undead, or fictional), with a tab\there and "quotes".']);
  });

  it('says so when a release has too few terms', () => {
    expect(() => schemaOrgVocabulary(release.split('\n').slice(0, 4).join('\n'), 'x')).toThrow(/too few terms/);
  });
});
