import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Terms to describe generated resources with, taken from the newest schema.org release in the shared
 * data (../shared/data/rdf/schemaorg-releases.tar.gz, next to this repository) so that generated
 * documents use a real vocabulary's classes, properties and prose: real IRIs differ in length and
 * share prefixes as real ones do, and real comments carry the punctuation, quotes and non-ASCII text
 * that escaping and hashing meet in the wild. Without the shared data (a fresh clone) the terms are
 * generated with the same shape, and `source` says so.
 */
export interface DescribedClass {
  iri: string;
  /** Properties whose schema:domainIncludes names the class and whose range is a literal. */
  literalProperties: { iri: string; range: LiteralRange }[];
}

export type LiteralRange = 'text' | 'date' | 'number' | 'boolean';

export interface Vocabulary {
  source: 'schema.org' | 'generated';
  /** The release the terms come from (schema.org), for reports. */
  release?: string;
  /** Classes with at least 6 literal properties of their own. */
  classes: DescribedClass[];
  /** Properties whose range is a class: links between resources. */
  linkProperties: string[];
  /** The class of the blank node every resource has, and its literal properties (a postal address in schema.org). */
  nested: { property: string; class: DescribedClass };
  /** Real prose (rdfs:comment texts) to use as literal values. */
  texts: string[];
}

export const SCHEMAORG_RELEASES = path.resolve(import.meta.dirname, '../../../shared/data/rdf/schemaorg-releases.tar.gz');

const S = 'http://schema.org/';
const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
const RDFS_COMMENT = 'http://www.w3.org/2000/01/rdf-schema#comment';
const RANGES: Record<string, LiteralRange> = {
  Text: 'text', URL: 'text', Date: 'date', DateTime: 'date', Number: 'number', Integer: 'number', Float: 'number', Boolean: 'boolean',
};

/** The release's N-Quads lines, read with the system's tar (the archive is 17 MB; only one member is unpacked). */
function newestRelease(file: string): { name: string; nquads: string } {
  const tar = (member: string) => execFileSync('tar', ['-xzOf', file, member], { maxBuffer: 64 * 2 ** 20, encoding: 'utf8' });
  const rows = tar('schemaorg-releases/index.tsv').trim().split('\n').slice(1);
  const name = rows.at(-1)!.split('\t')[0]!;
  return { name, nquads: tar(`schemaorg-releases/${name}.nq`) };
}

const ECHAR: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

/** An N-Quads string's text (the releases hold raw tabs too, which JSON.parse would refuse). */
function unescapeLiteral(s: string): string {
  return s.replace(/\\(u[0-9A-Fa-f]{4}|U[0-9A-Fa-f]{8}|.)/g, (_, e: string) => (e.length > 1 ? String.fromCodePoint(parseInt(e.slice(1), 16)) : ECHAR[e] ?? e));
}

/** The terms of a schema.org release given as N-Quads text. */
export function schemaOrgVocabulary(nquads: string, release?: string): Vocabulary {
  const domains = new Map<string, string[]>(); // class → properties
  const ranges = new Map<string, string[]>(); // property → ranges
  const texts: string[] = [];
  const superseded = new Set<string>();
  const line = /^<([^>]+)> <([^>]+)> (?:<([^>]+)>|"((?:[^"\\]|\\.)*)"(?:@\w+|\^\^<[^>]+>)?)/;
  for (const l of nquads.split('\n')) {
    const m = line.exec(l);
    if (!m) continue;
    const [, s, p, o, lit] = m;
    if (p === `${S}domainIncludes` && o) (domains.get(o) ?? domains.set(o, []).get(o)!).push(s!);
    else if (p === `${S}rangeIncludes` && o) (ranges.get(s!) ?? ranges.set(s!, []).get(s!)!).push(o);
    else if (p === `${S}supersededBy`) superseded.add(s!);
    else if (p === RDFS_COMMENT && lit !== undefined && lit.length >= 40) texts.push(unescapeLiteral(lit));
    else if (p === RDF_TYPE && o?.endsWith('#Class')) domains.get(s!) ?? domains.set(s!, []);
  }
  const literalRange = (p: string): LiteralRange | undefined => {
    for (const r of ranges.get(p) ?? []) if (r.startsWith(S) && RANGES[r.slice(S.length)]) return RANGES[r.slice(S.length)];
    return undefined;
  };
  const describe = (c: string): DescribedClass => ({
    iri: c,
    literalProperties: (domains.get(c) ?? []).filter((p) => !superseded.has(p) && literalRange(p)).sort().map((p) => ({ iri: p, range: literalRange(p)! })),
  });
  const classes = [...domains.keys()].sort().map(describe).filter((c) => c.literalProperties.length >= 6);
  const linkProperties = [...ranges.keys()].filter((p) => !superseded.has(p) && !literalRange(p) && (domains.get(`${S}Thing`) ?? []).includes(p)).sort();
  for (const p of [...ranges.keys()].sort()) if (linkProperties.length < 10 && !superseded.has(p) && !literalRange(p) && !linkProperties.includes(p)) linkProperties.push(p);
  const address = describe(`${S}PostalAddress`);
  if (classes.length === 0 || linkProperties.length === 0 || address.literalProperties.length < 3) throw new Error(`schema.org release ${release ?? ''}: too few terms to describe resources with`);
  return { source: 'schema.org', release, classes, linkProperties, nested: { property: `${S}address`, class: address }, texts };
}

/** Terms of the same shape when the shared data is absent. */
export function generatedVocabulary(): Vocabulary {
  const ns = 'http://vocab.example.org/ns#';
  const kinds: LiteralRange[] = ['text', 'text', 'date', 'number', 'boolean', 'text'];
  const cls = (name: string, n: number): DescribedClass => ({
    iri: `${ns}${name}`,
    literalProperties: Array.from({ length: n }, (_, k) => ({ iri: `${ns}${name.toLowerCase()}Property${k}`, range: kinds[k % kinds.length]! })),
  });
  return {
    source: 'generated',
    classes: Array.from({ length: 40 }, (_, k) => cls(`Class${k}`, 6 + (k % 9))),
    linkProperties: Array.from({ length: 12 }, (_, k) => `${ns}relation${k}`),
    nested: { property: `${ns}address`, class: cls('Address', 6) },
    texts: Array.from({ length: 200 }, (_, k) => `Generated text ${k}: a resource's description with "quotes", a line\nbreak and an accent (é) to escape.`),
  };
}

let cached: Vocabulary | undefined;

/** schema.org's newest release from the shared data when it is there, else generated terms. */
export function realVocabulary(file = SCHEMAORG_RELEASES): Vocabulary {
  if (file === SCHEMAORG_RELEASES && cached) return cached;
  let v: Vocabulary;
  try {
    if (!fs.existsSync(file)) throw new Error('absent');
    const { name, nquads } = newestRelease(file);
    v = schemaOrgVocabulary(nquads, name);
  } catch {
    v = generatedVocabulary();
  }
  if (file === SCHEMAORG_RELEASES) cached = v;
  return v;
}
