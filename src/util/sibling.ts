/**
 * The URL of a module beside the caller, named as in the sources (`siblingModule(import.meta.url,
 * './worker.ts')`), for what the compiler cannot see: worker-thread entries and imports by URL.
 * The same code runs as TypeScript (tsx, vitest: the caller is a `.ts` file) and compiled (dist/:
 * the caller is a `.js` file, and only `.js` files are there), and tsc rewrites only the
 * specifiers of static and literal dynamic imports, so the extension is chosen here, from the
 * caller's own.
 */
export function siblingModule(callerUrl: string, relative: string): URL {
  const url = new URL(relative, callerUrl);
  if (!/\.[cm]?ts$/.test(new URL(callerUrl).pathname)) url.pathname = url.pathname.replace(/\.([cm]?)ts$/, '.$1js');
  return url;
}
