// Libraries that ship no type declarations: the parts of their API we use.
declare module 'rdf-canonize' {
  const canonize: {
    canonize(input: unknown, options: { algorithm: string; maxWorkFactor?: number; signal?: AbortSignal; inputFormat?: string; format?: string }): Promise<string>;
    /** The N-Quads serialiser RDFC-1.0 uses for its hashes and its output (terms in RDF/JS form). */
    NQuads: { serializeQuadComponents(s: unknown, p: unknown, o: unknown, g: unknown): string };
  };
  export default canonize;
}

// Bundled JSON-LD contexts (src/trust/jsonld.ts): context URL → the context document.
declare module '@digitalbazaar/data-integrity-context' {
  export const contexts: Map<string, unknown>;
}
declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, unknown>;
}
