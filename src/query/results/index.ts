/** Query results as clients want them: the formats table, content negotiation names, stable blank nodes, the writers. */
export { FORMATS, ALL_FORMATS, formatInfo, formatsFor, mediaTypeOf, defaultFormat, formatFromParam, acceptOffers, kindOf, type FormatInfo } from './formats.ts';
export { isArchiveLabel, relabelSolutions, relabelQuads } from './blank-nodes.ts';
export { writeSolutions } from './solutions.ts';
export { writeGraph } from './graphs.ts';
