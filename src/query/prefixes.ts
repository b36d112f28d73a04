import { DM } from '../archive/namespace.ts';

/**
 * Prefixes a query (or a CLI triple pattern) may use without declaring them: the vocabularies Linked Data
 * in the archive uses most, and the project's own. A query's own PREFIX always wins over these.
 */
export const COMMON_PREFIXES = {
  rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  owl: 'http://www.w3.org/2002/07/owl#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
  schema: 'http://schema.org/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  dcterms: 'http://purl.org/dc/terms/',
  dc: 'http://purl.org/dc/elements/1.1/',
  prov: 'http://www.w3.org/ns/prov#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  dcat: 'http://www.w3.org/ns/dcat#',
  void: 'http://rdfs.org/ns/void#',
  sh: 'http://www.w3.org/ns/shacl#',
  dm: DM,
} as const satisfies Readonly<Record<string, string>>;
