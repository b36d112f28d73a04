import type { Quad } from '@rdfjs/types';
import { quadToNQuads, termToNQuads } from '../rdf/canonical.ts';
import { type N3Format, parseN3Text } from '../extract/n3.ts';
import { UserError } from '../util/errors.ts';
import { jsonText, parseJsonLdDocument, proofObject, unsecuredJsonLd } from './jsonld.ts';
import type { SigningKey, TrustList } from './multikey.ts';
import { createProof, signProofNode, splitProofs, type TrustReport, verifyGraph } from './proof.ts';

/** Signing and checking RDF files as a user holds them (Turtle, N-Triples, N-Quads, TriG, JSON-LD). */

export type DocumentFormat = N3Format | 'JSON-LD';

const FORMATS: Record<string, DocumentFormat> = { ttl: 'Turtle', turtle: 'Turtle', nt: 'N-Triples', nq: 'N-Quads', trig: 'TriG', jsonld: 'JSON-LD', json: 'JSON-LD' };

export function formatOfFile(file: string): DocumentFormat {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase() ?? '';
  const f = FORMATS[ext];
  if (!f) throw new UserError(`${file}: cannot tell its RDF syntax from its extension; use .ttl, .nt, .nq, .trig or .jsonld`);
  return f;
}

export async function parseDocument(text: string, format: DocumentFormat, baseIri: string, name: string): Promise<Quad[]> {
  const { quads, error } = format === 'JSON-LD'
    ? await parseJsonLdDocument(text, baseIri)
    : await parseN3Text(text, format, baseIri, Number.MAX_SAFE_INTEGER).then((r) => ({ quads: r.quads, error: r.diagnostics.find((d) => d.level === 'error')?.message }));
  // A proof over part of a document would sign data the reader never sees: refuse half-parsed input.
  if (error) throw new UserError(`${name} is not valid ${format}: ${error}`);
  return quads;
}

/**
 * The IRIs of a document that a base would resolve (`<#me>`, `<>`, `"id": "x"`), as written (roughly:
 * relative to the base): those that differ between two parses under bases of different schemes, hosts and
 * paths. Term values are compared, never blank node labels, which differ from one parse to the next.
 */
export async function relativeIris(text: string, format: DocumentFormat, name: string): Promise<string[]> {
  const bases = ['http://a.invalid/p/q/r', 'https://b.invalid/s/t'];
  const [a, b] = await Promise.all(bases.map(async (base) => new Set((await parseDocument(text, format, base, name)).flatMap(irisOf))));
  const dir = bases[0]!.slice(0, bases[0]!.lastIndexOf('/') + 1);
  return [...a!].filter((iri) => !b!.has(iri)).map((iri) => (iri.startsWith(bases[0]!) ? iri.slice(bases[0]!.length) : iri.startsWith(dir) ? iri.slice(dir.length) : iri));
}

export function relativeIriProblem(name: string, relative: string[]): string {
  const like = relative.slice(0, 3).map((iri) => `<${iri}>`).join(', ');
  return `${name} uses relative IRIs (${like}${relative.length > 3 ? ', …' : ''}): give --base URL, the URL the document is published at, because the proof covers the IRIs they resolve to`;
}

function irisOf(q: Quad): string[] {
  const out: string[] = [];
  for (const t of [q.subject, q.predicate, q.object, q.graph]) {
    if (t.termType === 'NamedNode') out.push(t.value);
    else if (t.termType === 'Literal') out.push(t.datatype.value);
  }
  return out;
}

/**
 * The document's text with a proof appended. The original text is kept byte for byte (its
 * prefixes, comments, layout); the proof is added after it, as an anonymous node in Turtle and
 * TriG, and under a blank node label the text does not use in N-Triples and N-Quads.
 */
export async function signText(text: string, format: DocumentFormat, key: SigningKey, documentIri: string | undefined, created?: string): Promise<string> {
  if (format === 'JSON-LD') return signJsonLd(text, key, documentIri, created);
  if (documentIri === undefined) throw new UserError(`a ${format} document's proof hangs from its URL (<URL> sec:proof [ … ]): give the URL it is published at`);
  const quads = await parseDocument(text, format, documentIri, documentIri);
  const split = splitProofs(quads);
  if (split.proofs.length > 0) throw new UserError(`${documentIri} already carries a proof; sign the unsecured document (remove its sec:proof first)`);
  // What a verifier checks: the graph without its sec:proof links (to a detached proof, say).
  const proof = await createProof(split.document, key, { documentIri, created });
  const sep = text.length === 0 || text.endsWith('\n') ? '' : '\n';
  if (format === 'Turtle' || format === 'TriG') {
    const [link, ...body] = proof;
    const props = body.map((q) => `  ${termToNQuads(q.predicate)} ${termToNQuads(q.object)}`).join(' ;\n');
    return `${text}${sep}\n${termToNQuads(link!.subject)} ${termToNQuads(link!.predicate)} [\n${props}\n] .\n`;
  }
  let label = 'proof';
  for (let i = 0; text.includes(`_:${label}`); i++) label = `proof${i}`;
  return text + sep + proof.map((q) => quadToNQuads(q).replace(/_:proof\b/g, `_:${label}`)).join('');
}

/**
 * A JSON-LD document with a `proof` member (vc-data-integrity §2.1), as jsonld-signatures writes one: the
 * unsecured document (unsecuredJsonLd) re-serialised, its graph signed, and the result checked once by
 * parsing it back, because a document whose own @context gives `proof`, `type` or `created` other
 * meanings would carry a proof that no verifier reads as the one signed.
 * `base`: the document's URL, written into its @context if it has relative IRIs (refused without one).
 */
async function signJsonLd(text: string, key: SigningKey, base: string | undefined, created?: string): Promise<string> {
  const name = base ?? 'the document';
  const relative = await relativeIris(text, 'JSON-LD', name);
  if (relative.length > 0 && base === undefined) throw new UserError(relativeIriProblem(name, relative));
  const unsecured = unsecuredJsonLd(text, name, relative.length > 0 ? base : undefined);
  const parseBase = base ?? 'urn:datamonitor:unresolved';
  const split = splitProofs(await parseDocument(jsonText(unsecured), 'JSON-LD', parseBase, name));
  if (split.proofs.length > 0) throw new UserError(`${name} already carries a proof; sign the unsecured document`);
  const signed = jsonText({ ...unsecured, proof: proofObject(await signProofNode(split.document, key, created)) });
  const check = await verifyGraph(await parseDocument(signed, 'JSON-LD', parseBase, name));
  if (check.verdict !== 'verified') throw new UserError(`${name}: its @context changes the meaning of the proof's terms (proof, type, created, cryptosuite…), so the proof would not verify (${check.reason}); leave those terms to the Data Integrity context`);
  return signed;
}

export async function verifyText(text: string, format: DocumentFormat, documentIri: string, trust?: TrustList): Promise<TrustReport> {
  return verifyGraph(await parseDocument(text, format, documentIri, documentIri), trust);
}

/**
 * A detached proof of the document: a Turtle document of its own holding `<doc> sec:proof [ … ]`,
 * over the document's graph (without its sec:proof links). The document stays as it is; its server
 * links the proof with `Link: <proof>; rel="https://w3id.org/security#proof"`, or the document states
 * `<> sec:proof <proof>` (src/trust/README.md).
 */
export async function detachedProofText(text: string, format: DocumentFormat, key: SigningKey, documentIri: string, created?: string): Promise<string> {
  const split = splitProofs(await parseDocument(text, format, documentIri, documentIri));
  if (split.proofs.length > 0) throw new UserError(`${documentIri} already carries an embedded proof; a detached proof signs the unsecured document`);
  const [link, ...body] = await createProof(split.document, key, { documentIri, created });
  const props = body.map((q) => `  ${termToNQuads(q.predicate)} ${termToNQuads(q.object)}`).join(' ;\n');
  return `# Data Integrity proof (eddsa-rdfc-2022) of ${documentIri}\n${termToNQuads(link!.subject)} ${termToNQuads(link!.predicate)} [\n${props}\n] .\n`;
}
