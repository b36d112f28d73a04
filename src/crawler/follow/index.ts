/** Query-driven crawling (issue #17): what the crawl learns steers what it fetches next. */
export { QueryDriver, validateDrivingQueries, type DrivingQueries, type QueryDrivenSummary, type Offer } from './driver.ts';
export { Knowledge, jsonTerm } from './knowledge.ts';
export { createSchedule, GROWTH_FRACTION, type EvaluationSchedule } from './schedule.ts';
export { candidateLinks, patternMatches, queryIris, Traversal, TraversalPolicy, triplePatterns, type PatternMatch, type TriplePattern } from './traversal.ts';
export { ArchiveRecall, refetchDueAt, type Recalled } from './archived.ts';
