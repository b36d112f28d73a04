import { UserError } from '../../util/errors.ts';
import { essenceOf } from '../../util/content-type.ts';
import type { QueryForm, ResultFormat } from '../../versions/types.ts';

/**
 * Every result serialisation the archive writes, with the names clients use for it. Clients differ:
 * SPARQLWrapper sends `format=xml` (and `output=`, `results=`) for every query form, Fuseki users write
 * `output=ttl`, browsers send `Accept: application/xml`, older tools ask for `application/json` or
 * `text/plain`. The table maps all of them onto one format per query form.
 */
export interface FormatInfo {
  format: ResultFormat;
  /** What the results are: solutions (SELECT, ASK) or a graph (CONSTRUCT, DESCRIBE). */
  kind: 'solutions' | 'graph';
  /** The registered media type: the Content-Type when the client named no other. */
  mediaType: string;
  /** Other media types that get this format through Accept (answered with the type asked for). */
  aliases: string[];
  /** Short names for `format=` / `output=` (media types are accepted there too). */
  names: string[];
}

/** In preference order per kind: the first of a kind is what `Accept: *\/*` (or none) gets. */
export const FORMATS: readonly FormatInfo[] = [
  { format: 'json', kind: 'solutions', mediaType: 'application/sparql-results+json', aliases: ['application/json'], names: ['json', 'srj'] },
  { format: 'xml', kind: 'solutions', mediaType: 'application/sparql-results+xml', aliases: ['application/xml', 'text/xml'], names: ['xml', 'srx'] },
  { format: 'csv', kind: 'solutions', mediaType: 'text/csv', aliases: [], names: ['csv'] },
  { format: 'tsv', kind: 'solutions', mediaType: 'text/tab-separated-values', aliases: [], names: ['tsv'] },
  { format: 'ntriples', kind: 'graph', mediaType: 'application/n-triples', aliases: ['text/plain'], names: ['ntriples', 'nt', 'n-triples'] },
  { format: 'turtle', kind: 'graph', mediaType: 'text/turtle', aliases: ['application/x-turtle', 'application/turtle', 'text/n3', 'text/rdf+n3', 'application/n3'], names: ['turtle', 'ttl', 'n3'] },
  { format: 'rdfxml', kind: 'graph', mediaType: 'application/rdf+xml', aliases: ['application/xml', 'text/xml'], names: ['rdfxml', 'rdf', 'rdf+xml', 'xml'] },
  { format: 'jsonld', kind: 'graph', mediaType: 'application/ld+json', aliases: ['application/json', 'application/x-json+ld'], names: ['jsonld', 'json-ld', 'json'] },
  { format: 'nquads', kind: 'graph', mediaType: 'application/n-quads', aliases: [], names: ['nquads', 'nq', 'n-quads'] },
];

const BY_FORMAT = new Map(FORMATS.map((f) => [f.format, f]));

export const ALL_FORMATS: readonly ResultFormat[] = FORMATS.map((f) => f.format);

export function kindOf(form: QueryForm): FormatInfo['kind'] {
  return form === 'select' || form === 'ask' ? 'solutions' : 'graph';
}

export function formatInfo(format: ResultFormat): FormatInfo {
  const info = BY_FORMAT.get(format);
  if (!info) throw new UserError(`unknown result format '${format}': use one of ${ALL_FORMATS.join(', ')}`);
  return info;
}

export function mediaTypeOf(format: ResultFormat): string {
  return formatInfo(format).mediaType;
}

/** Which formats fit a query form, the default first. */
export function formatsFor(form: QueryForm): ResultFormat[] {
  const kind = kindOf(form);
  return FORMATS.filter((f) => f.kind === kind).map((f) => f.format);
}

export function defaultFormat(form: QueryForm): ResultFormat {
  return formatsFor(form)[0]!;
}

/**
 * The format a `format=` / `output=` value names for this query form: a short name or a media type
 * (`xml` is RDF/XML for CONSTRUCT, `json` is JSON-LD). `undefined` when the value names a format of the
 * other kind (SPARQLWrapper asks `format=xml` of a CONSTRUCT it wants as Turtle): the caller then
 * negotiates by Accept, as Fuseki and Virtuoso do. A value that names no format at all is a UserError.
 */
export function formatFromParam(value: string, form: QueryForm): ResultFormat | undefined {
  const kind = kindOf(form);
  let known = false;
  // A client may send a list (SPARQLWrapper sends the name, then the media type): the first that fits wins.
  for (const raw of value.split(',')) {
    const v = essenceOf(raw);
    if (!v) continue;
    const matches = FORMATS.filter((f) => f.names.includes(v) || f.mediaType === v || f.aliases.includes(v));
    if (matches.length > 0) known = true;
    const fit = matches.find((f) => f.kind === kind);
    if (fit) return fit.format;
  }
  if (!known) {
    const names = FORMATS.filter((f) => f.kind === kind).map((f) => f.names[0]);
    throw new UserError(`unknown result format '${value}': use one of ${names.join(', ')} (or a media type), or leave format= out and send Accept`);
  }
  return undefined;
}

/** Media types a client may name in Accept for this form, each with its format, the default first. */
export function acceptOffers(form: QueryForm): Array<{ mediaType: string; format: ResultFormat }> {
  const kind = kindOf(form);
  const offers: Array<{ mediaType: string; format: ResultFormat }> = [];
  // Registered types first, so that a tie (e.g. */*) goes to one of them, then the aliases.
  for (const f of FORMATS) if (f.kind === kind) offers.push({ mediaType: f.mediaType, format: f.format });
  for (const f of FORMATS) if (f.kind === kind) for (const a of f.aliases) offers.push({ mediaType: a, format: f.format });
  return offers;
}
