import fastifyCompress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';

/**
 * Compression for the bodies Linked Data clients page through: LDES fragments, Triple Pattern Fragments,
 * SPARQL results, the VoID and Service Descriptions. RDF text compresses about tenfold (an LDES member:
 * 3,009 bytes, 297 gzipped; bench/RESULTS.md#ldes), and a mirror follows every page of the stream.
 * Replay, WARC and CDX bodies are not compressed here: replay gives the archived bytes as they were, and
 * a WARC file is gzip already. Only what the client's Accept-Encoding names; br at quality 4 (the plugin's
 * default, not 11: a page is compressed on every request).
 */
export const COMPRESSED = {
  compress: {
    encodings: ['br', 'gzip', 'deflate'] as Array<'br' | 'gzip' | 'deflate'>,
    threshold: 1024,
    customTypes: /^(?:text\/|application\/(?:n-quads|n-triples|trig|ld\+json|rdf\+xml|json|xml|sparql-results\+(?:json|xml)))/,
  },
};

/** Registers the plugin for the routes that declare COMPRESSED; none else is touched. Before those routes. */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, { global: false });
}
