import type { Quad } from '@rdfjs/types';
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context';
import { parseJsonLdText } from '../extract/jsonld.ts';
import { UserError } from '../util/errors.ts';

/**
 * JSON-LD, the usual form of Data Integrity documents (a Verifiable Credential, a signed dataset
 * description): the proof is the top object's `proof` member, which the Data Integrity context maps to
 * `sec:proof` with `@container: @graph`, so its statements are a graph of their own (what splitProofs
 * separates). Contexts come from packages, never from the network: `sign` and `verify-proof` run where
 * the signer or the verifier is, and a context fetched there could say something else than the one the
 * other side expanded with.
 */

export const DATA_INTEGRITY_CONTEXT = 'https://w3id.org/security/data-integrity/v2';
const CREDENTIALS_V2_CONTEXT = 'https://www.w3.org/ns/credentials/v2';

/** The contexts a signed JSON-LD document may name: the Data Integrity and Verifiable Credentials ones. */
const BUNDLED = new Map<string, unknown>([...dataIntegrityContexts, ...credentialsContexts]);

async function bundledContext(url: string): Promise<unknown> {
  const context = BUNDLED.get(url);
  if (context === undefined) {
    throw new Error(`${url} is not fetched here: put its terms inline in @context (carried: the Data Integrity and Verifiable Credentials contexts)`);
  }
  return structuredClone(context);
}

export async function parseJsonLdDocument(text: string, baseIri: string): Promise<{ quads: Quad[]; error?: string }> {
  const { quads, diagnostics } = await parseJsonLdText(text, { baseIRI: baseIri, maxQuads: Number.MAX_SAFE_INTEGER, loadDocument: bundledContext });
  return { quads, error: diagnostics.find((d) => d.level === 'error')?.message };
}

type JsonObject = Record<string, unknown>;

function topObject(text: string, name: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UserError(`${name} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UserError(`${name}: a Data Integrity proof goes on one JSON object (its "proof" member); this document is ${Array.isArray(value) ? 'an array' : 'not an object'}: wrap it as {"@context": …, "@graph": [ … ]}`);
  }
  return value as JsonObject;
}

const contextList = (context: unknown): unknown[] => (context === undefined ? [] : Array.isArray(context) ? context : [context]);

/**
 * The unsecured document as it will be signed: its `@context` followed by the Data Integrity context
 * (unless it names it or the VC 2.0 context, which includes it), exactly as jsonld-signatures adds it,
 * and `{"@base": base}` first when the document has relative IRIs and the signer named its URL: verifiers
 * of JSON-LD proofs expand without a base (jsonld-signatures passes `base: null`), so the base the
 * signature covers must be in the document.
 */
export function unsecuredJsonLd(text: string, name: string, base: string | undefined): JsonObject {
  const doc = topObject(text, name);
  if ('proof' in doc) throw new UserError(`${name} already carries a proof; sign the unsecured document (remove its "proof" member first)`);
  let context = contextList(doc['@context']);
  if (!context.includes(DATA_INTEGRITY_CONTEXT) && !context.includes(CREDENTIALS_V2_CONTEXT)) context = [...context, DATA_INTEGRITY_CONTEXT];
  if (base !== undefined) context = [{ '@base': base }, ...context];
  const { '@context': _, ...rest } = doc;
  return { '@context': context.length === 1 ? context[0] : context, ...rest };
}

/** The JSON form of a proof node's statements (vc-data-integrity's `proof` object, as jsonld-signatures writes it). */
export function proofObject(proofQuads: Quad[]): JsonObject {
  const value = (suffix: string): string | undefined => proofQuads.find((q) => q.predicate.value.endsWith(suffix))?.object.value;
  const purpose = value('#proofPurpose');
  return {
    type: 'DataIntegrityProof',
    created: value('/created'),
    verificationMethod: value('#verificationMethod'),
    cryptosuite: value('#cryptosuite'),
    proofPurpose: purpose?.slice(purpose.lastIndexOf('#') + 1),
    proofValue: value('#proofValue'),
  };
}

export const jsonText = (doc: JsonObject): string => `${JSON.stringify(doc, null, 2)}\n`;
