/**
 * Tests may talk to 127.0.0.1 only. Any name lookup other than localhost fails here at once, so a
 * fixture that leaks a real host name (a vocabulary IRI, say) shows up as a DNS error in the test
 * instead of reaching out to a resolver.
 */
import dns from 'node:dns';

const LOCAL = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/i;

function refuse(hostname: string): NodeJS.ErrnoException {
  const e: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname} (tests may not resolve outside names)`);
  e.code = 'ENOTFOUND';
  return e;
}

const original = dns.lookup;
(dns as any).lookup = function lookup(hostname: string, ...rest: any[]) {
  const cb = rest[rest.length - 1];
  if (!LOCAL.test(hostname)) return process.nextTick(() => cb(refuse(hostname)));
  return (original as any).call(dns, hostname, ...rest);
};
const originalPromise = dns.promises.lookup;
(dns.promises as any).lookup = async function lookup(hostname: string, ...rest: any[]) {
  if (!LOCAL.test(hostname)) throw refuse(hostname);
  return (originalPromise as any).call(dns.promises, hostname, ...rest);
};
