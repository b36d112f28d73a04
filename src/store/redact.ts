/** The connection URL without its password, for messages. Apart from postgres.ts so that a build without pg can say it too. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}
