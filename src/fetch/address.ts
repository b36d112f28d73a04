/** Name resolution and the address-safety policy: which IPs the fetcher may connect to. */
import { promises as dnsPromises, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves a host name to its addresses; rejects with an error whose code is ENOTFOUND when it does not exist. */
export type LookupFn = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemLookup: LookupFn = async (hostname) => {
  const found = await dnsPromises.lookup(hostname, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

function notFound(hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
}

/**
 * A `--resolve HOST:IP` style resolver: names in `map` resolve to the given IP (IPv6 with or without
 * brackets); other names go to `fallback` (the crawl passes the system resolver, so --resolve adds to
 * it), or fail with ENOTFOUND when there is none (so tests never ask a real DNS server).
 */
export function staticLookup(map: Record<string, string>, fallback?: LookupFn): LookupFn {
  const table = new Map<string, ResolvedAddress>();
  for (const [name, given] of Object.entries(map)) {
    const ip = given.startsWith('[') && given.endsWith(']') ? given.slice(1, -1) : given;
    const family = isIP(ip);
    if (family === 0) throw new Error(`staticLookup: "${given}" (for ${name}) is not an IP address`);
    table.set(name.toLowerCase(), { address: ip, family: family as 4 | 6 });
  }
  return async (hostname) => {
    const hit = table.get(hostname.toLowerCase());
    if (hit) return [hit];
    if (fallback) return fallback(hostname);
    throw notFound(hostname);
  };
}

/**
 * One `--resolve` value, `host:ip`: the host ends at the first colon (a host name has none), so an
 * IPv6 address may follow bare (`host:::1`) or in brackets (`host:[::1]`). Throws a one-line Error.
 */
export function parseResolveEntry(entry: string): { host: string; ip: string } {
  const i = entry.indexOf(':');
  const host = i > 0 ? entry.slice(0, i).trim().toLowerCase() : '';
  let ip = i > 0 ? entry.slice(i + 1).trim() : '';
  if (ip.startsWith('[') && ip.endsWith(']')) ip = ip.slice(1, -1);
  if (!host || !ip) throw new Error(`'${entry}' must look like host:ip, e.g. example.org:127.0.0.1 or example.org:[::1]`);
  if (isIP(ip) === 0) throw new Error(`'${entry}': '${ip}' is not an IPv4 or IPv6 address`);
  return { host, ip };
}

/** Raised when the target address is private/loopback/link-local and private targets are not allowed. */
export class BlockedAddressError extends Error {
  readonly code = 'EBLOCKEDADDRESS';
  constructor(readonly hostname: string, readonly address: string) {
    super(`refused to connect to ${hostname} (${address}): private, loopback or link-local address (use --allow-private to permit)`);
    this.name = 'BlockedAddressError';
  }
}

export interface AddressPolicy {
  allowPrivate: boolean;
  /** IPs or CIDR ranges allowed even when private addresses are refused. */
  allowAddresses?: string[];
}

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** Returns a predicate that says whether connecting to an IP literal is refused. */
export function addressBlocker(policy: AddressPolicy): (ip: string) => boolean {
  if (policy.allowPrivate) return () => false;
  const exceptions: Range[] = (policy.allowAddresses ?? []).map((entry) => {
    const parsed = entry.includes('/') ? ipaddr.parseCIDR(entry) : ipaddr.parse(entry);
    if (Array.isArray(parsed)) return parsed as Range;
    const ip = ipaddr.process(entry);
    return [ip, ip.kind() === 'ipv4' ? 32 : 128];
  });
  return (ip) => {
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      // process() turns ::ffff:a.b.c.d into a.b.c.d so mapped forms get the IPv4 ranges
      parsed = ipaddr.process(ip.startsWith('[') ? ip.slice(1, -1) : ip);
    } catch {
      return true;
    }
    for (const [range, bits] of exceptions) {
      if (range.kind() === parsed.kind() && parsed.match(range as never, bits)) return false;
    }
    // Only global unicast is allowed: private, loopback, link-local, unique-local, CGNAT,
    // unspecified, multicast, reserved and the IPv4-embedding IPv6 ranges are all refused.
    return parsed.range() !== 'unicast';
  };
}

type NodeLookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * Adapts a LookupFn to the callback form net.connect expects, dropping refused addresses so that
 * the check applies to the address actually connected to (no second resolution can sneak in).
 */
export function checkedNodeLookup(lookup: LookupFn, isBlocked: (ip: string) => boolean) {
  return (hostname: string, options: LookupOptions, callback: NodeLookupCallback): void => {
    lookup(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        const usable = wanted.filter((a) => !isBlocked(a.address));
        if (usable.length === 0) {
          if (wanted.length > 0) callback(new BlockedAddressError(hostname, wanted[0].address), '', 0);
          else callback(notFound(hostname), '', 0);
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0].address, usable[0].family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
