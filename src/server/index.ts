/** The archive's web front: SPARQL protocol, Memento (RFC 7089), a CDXJ index, the dashboard and a write API. */
export { buildServer, startServer, type ServerOptions } from './app.ts';
export { VersionIndex } from '../versions/version-index.ts';
export {
  surt, cdxLines, cdxjText, parseFilter, parseFieldList, sortLines, formatLines, CDX_FIELDS, type CdxLine, type CdxQuery, type CdxField, type CdxOutput, type MatchType,
} from './cdx.ts';
export { cdxPage, cdxPageStream, cdxAll, type CdxPage, type CdxPageQuery, type CdxPageStream } from './cdx-query.ts';
export {
  mementosOf, closestMemento, timestampOf, parseTimestamp, httpDate, mementoUris, mementoLinks, timegateLinks, timemapLinks,
  timemapJson, linkHeader, originalResponse, versionNQuads, parseAcceptDatetime, type Memento, type MementoUris,
} from './mementos.ts';
export { preferred } from './negotiate.ts';
