import type { ResultFormat, SparqlJsonResults, SparqlJsonTerm } from '../../versions/types.ts';
import { escapeXml as esc } from '../../util/escape.ts';

/**
 * SELECT / ASK results written from SPARQL JSON results (which the engine writes and relabelBlankNodes
 * makes stable). The output follows Oxigraph's own writers byte for byte where the specs leave a choice,
 * so that answers without fresh blank nodes are what they were before these writers existed.
 */
export function writeSolutions(results: SparqlJsonResults, format: ResultFormat): string {
  switch (format) {
    case 'json':
      return JSON.stringify(results);
    case 'xml':
      return xml(results);
    case 'csv':
      return separated(results, ',', '\r\n', csvTerm, (v) => v);
    case 'tsv':
      return separated(results, '\t', '\n', tsvTerm, (v) => `?${v}`);
    default:
      throw new Error(`${format} is not a format for solutions`);
  }
}

const XSD = 'http://www.w3.org/2001/XMLSchema#';

function separated(r: SparqlJsonResults, sep: string, eol: string, term: (t: SparqlJsonTerm) => string, head: (v: string) => string): string {
  // SPARQL 1.1 CSV/TSV define no boolean result: written as the bare word, as Oxigraph and Jena do.
  if (typeof r.boolean === 'boolean') return String(r.boolean);
  const vars = r.head.vars ?? [];
  let out = vars.map(head).join(sep) + eol;
  for (const b of r.results?.bindings ?? []) out += vars.map((v) => (b[v] ? term(b[v]) : '')).join(sep) + eol;
  return out;
}

/** SPARQL 1.1 CSV (https://www.w3.org/TR/sparql11-results-csv-tsv/#csv): plain values, quoted when needed. */
function csvTerm(t: SparqlJsonTerm): string {
  const text = t.type === 'bnode' ? `_:${t.value as string}` : t.type === 'triple' ? tsvTerm(t) : (t.value as string);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const BARE: Record<string, RegExp> = {
  [`${XSD}integer`]: /^[+-]?\d+$/,
  [`${XSD}decimal`]: /^[+-]?\d*\.\d+$/,
  [`${XSD}double`]: /^[+-]?(?:\d+\.\d*|\.\d+|\d+)[eE][+-]?\d+$/,
  [`${XSD}boolean`]: /^(?:true|false)$/,
};

/** SPARQL 1.1 TSV: terms in Turtle syntax; numbers and booleans bare when their lexical form allows it. */
function tsvTerm(t: SparqlJsonTerm): string {
  if (t.type === 'triple' && typeof t.value === 'object') return `<< ${tsvTerm(t.value.subject)} ${tsvTerm(t.value.predicate)} ${tsvTerm(t.value.object)} >>`;
  const value = t.value as string;
  if (t.type === 'uri') return `<${value}>`;
  if (t.type === 'bnode') return `_:${value}`;
  if (t.datatype && BARE[t.datatype]?.test(value)) return value;
  const quoted = `"${value.replace(/[\\"\n\r\t]/g, (c) => ({ '\\': '\\\\', '"': '\\"', '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c]!)}"`;
  if (t['xml:lang']) return `${quoted}@${t['xml:lang']}`;
  if (t.datatype && t.datatype !== `${XSD}string`) return `${quoted}^^<${t.datatype}>`;
  return quoted;
}


/** SPARQL Query Results XML Format (https://www.w3.org/TR/rdf-sparql-XMLres/). */
function xml(r: SparqlJsonResults): string {
  let out = '<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head>';
  for (const v of r.head.vars ?? []) out += `<variable name="${esc(v)}"/>`;
  for (const l of r.head.link ?? []) out += `<link href="${esc(l)}"/>`;
  out += '</head>';
  if (typeof r.boolean === 'boolean') return `${out}<boolean>${r.boolean}</boolean></sparql>`;
  out += '<results>';
  for (const b of r.results?.bindings ?? []) {
    out += '<result>';
    for (const [name, t] of Object.entries(b)) out += `<binding name="${esc(name)}">${xmlTerm(t)}</binding>`;
    out += '</result>';
  }
  return `${out}</results></sparql>`;
}

function xmlTerm(t: SparqlJsonTerm): string {
  if (t.type === 'triple' && typeof t.value === 'object') {
    return `<triple><subject>${xmlTerm(t.value.subject)}</subject><predicate>${xmlTerm(t.value.predicate)}</predicate><object>${xmlTerm(t.value.object)}</object></triple>`;
  }
  const value = esc(t.value as string);
  if (t.type === 'uri') return `<uri>${value}</uri>`;
  if (t.type === 'bnode') return `<bnode>${value}</bnode>`;
  if (t['xml:lang']) return `<literal xml:lang="${esc(t['xml:lang'])}">${value}</literal>`;
  if (t.datatype && t.datatype !== `${XSD}string`) return `<literal datatype="${esc(t.datatype)}">${value}</literal>`;
  return `<literal>${value}</literal>`;
}
