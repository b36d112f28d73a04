/**
 * The location metric IL (seed 001): importance read off the URL alone. Fewer path segments is
 * better, a home page (`/`, index.*, default.*, or 'home' in the path) and a .com host earn a bonus.
 */
const HOME = /(^|\/)(index|default|home)(\.[a-z0-9]+)?$|home/i;

export function locationScore(url: string): number {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return -Infinity;
  }
  const path = u.pathname.replace(/\/+$/, '');
  const depth = path === '' ? 0 : path.split('/').length - 1;
  let score = -depth;
  if (path === '' || HOME.test(path)) score += 1;
  if (u.hostname.endsWith('.com')) score += 1;
  // Query strings mark generated pages, which the seed's repository filtered out as unimportant.
  if (u.search) score -= 1;
  return score;
}
