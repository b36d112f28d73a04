import { createHash, timingSafeEqual } from 'node:crypto';

/** Whether an `Authorization: Bearer <token>` header carries `token`. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
  return m !== null && sameSecret(m[1]!.trim(), token);
}

/** Compares a given token with the configured one in constant time (the server's write API, `federate`'s submissions). */
export function sameSecret(a: string, b: string): boolean {
  // Hash first: timingSafeEqual needs equal lengths, and the length must not leak either.
  return timingSafeEqual(createHash('sha256').update(a).digest(), createHash('sha256').update(b).digest());
}
