/** The fetch layer's public API. */
export type * from './types.ts';
export { createHttpFetcher, DEFAULT_FETCH_OPTIONS, type HttpFetcherOptions } from './http.ts';
export { parseRetryAfter, parseRetryAfterMs, parseHttpDate } from './retry-after.ts';
export { isTransientFetchError, reasonOfFetchError } from './reasons.ts';
export { staticLookup, parseResolveEntry, systemLookup, addressBlocker, BlockedAddressError, type LookupFn, type ResolvedAddress, type AddressPolicy } from './address.ts';
export { DEFAULT_ACCEPT, USER_AGENT_TOKEN, VERSION, buildUserAgent, userAgentToken } from './accept.ts';
export { decodeBody, type Decoded } from './decode.ts';
export { RobotsCache, type RobotsOptions, type RobotsRecord, type RobotsStore, type RobotsVerdict } from './robots.ts';
