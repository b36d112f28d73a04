import type { Quad } from '@rdfjs/types';
import { quadToNQuads, termToNQuads } from '../rdf/canonical.ts';
import { type N3Format, parseN3Text } from '../extract/n3.ts';
import { UserError } from '../util/errors.ts';
import type { SigningKey, TrustList } from './multikey.ts';
import { createProof, splitProofs, type TrustReport, verifyGraph } from './proof.ts';

/** Signing and checking RDF files as a user holds them (Turtle, N-Triples, N-Quads, TriG). */

const FORMATS: Record<string, N3Format> = { ttl: 'Turtle', turtle: 'Turtle', nt: 'N-Triples', nq: 'N-Quads', trig: 'TriG' };

export function formatOfFile(file: string): N3Format {
  const ext = /\.([a-z]+)$/i.exec(file)?.[1]?.toLowerCase() ?? '';
  const f = FORMATS[ext];
  if (!f) throw new UserError(`${file}: cannot tell its RDF syntax from its extension; use .ttl, .nt, .nq or .trig`);
  return f;
}

export async function parseDocument(text: string, format: N3Format, baseIri: string, name: string): Promise<Quad[]> {
  const { quads, diagnostics } = await parseN3Text(text, format, baseIri, Number.MAX_SAFE_INTEGER);
  const error = diagnostics.find((d) => d.level === 'error');
  // A proof over part of a document would sign data the reader never sees: refuse half-parsed input.
  if (error) throw new UserError(`${name} is not valid ${format}: ${error.message}`);
  return quads;
}

/**
 * The document's text with a proof appended. The original text is kept byte for byte (its
 * prefixes, comments, layout); the proof is added after it, as an anonymous node in Turtle and
 * TriG, and under a blank node label the text does not use in N-Triples and N-Quads.
 */
export async function signText(text: string, format: N3Format, key: SigningKey, documentIri: string, created?: string): Promise<string> {
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

export async function verifyText(text: string, format: N3Format, documentIri: string, trust?: TrustList): Promise<TrustReport> {
  return verifyGraph(await parseDocument(text, format, documentIri, documentIri), trust);
}

/**
 * A detached proof of the document: a Turtle document of its own holding `<doc> sec:proof [ … ]`,
 * over the document's graph (without its sec:proof links). The document stays as it is; its server
 * links the proof with `Link: <proof>; rel="https://w3id.org/security#proof"`, or the document states
 * `<> sec:proof <proof>` (src/trust/README.md).
 */
export async function detachedProofText(text: string, format: N3Format, key: SigningKey, documentIri: string, created?: string): Promise<string> {
  const split = splitProofs(await parseDocument(text, format, documentIri, documentIri));
  if (split.proofs.length > 0) throw new UserError(`${documentIri} already carries an embedded proof; a detached proof signs the unsecured document`);
  const [link, ...body] = await createProof(split.document, key, { documentIri, created });
  const props = body.map((q) => `  ${termToNQuads(q.predicate)} ${termToNQuads(q.object)}`).join(' ;\n');
  return `# Data Integrity proof (eddsa-rdfc-2022) of ${documentIri}\n${termToNQuads(link!.subject)} ${termToNQuads(link!.predicate)} [\n${props}\n] .\n`;
}
