/** The project's own vocabulary (provenance, document index): a module of its own, so that what names it (the query prefixes) need not load the exporter and its RDF libraries. */
export const DM = 'https://w3id.org/datamonitor/ns#';
/** The graph of the archive's facts about its documents and versions (provenance, trust verdicts). */
export const PROVENANCE_GRAPH = `${DM}provenance`;
/** `<alt> dm:alternateOf <doc>`: an alternate `crawl --variants` captured (src/archive/alternates.ts). */
export const ALTERNATE_OF = `${DM}alternateOf`;
