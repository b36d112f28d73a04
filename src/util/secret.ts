import { createHash, timingSafeEqual } from 'node:crypto';

/** Compares a given token with the configured one in constant time (the server's write API, `federate`'s submissions). */
export function sameSecret(a: string, b: string): boolean {
  // Hash first: timingSafeEqual needs equal lengths, and the length must not leak either.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
