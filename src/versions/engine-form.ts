/**
 * Which literal terms Oxigraph surely keeps as the archive writes them (plan/count.ts: only the others can be
 * one term to the engine with another archive term). Shared by the count planner and the SQLite store, which
 * filters the dictionary with it as rows are read (store.ts oddLiterals).
 */
const XSD = 'http://www.w3.org/2001/XMLSchema#';
/** Lexical forms the engine keeps as they are, by datatype (found by loading them: test/query/plan-count.test.ts). */
const ENGINE_FORM: Record<string, RegExp> = {
  [`${XSD}integer`]: /^(0|-?[1-9]\d*)$/,
  [`${XSD}decimal`]: /^(0|-?[1-9]\d*|-?(0|[1-9]\d*)\.\d*[1-9])$/,
  [`${XSD}boolean`]: /^(true|false)$/,
  [`${XSD}dateTime`]: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d*[1-9])?Z?$/,
  [`${XSD}date`]: /^\d{4}-\d\d-\d\dZ?$/,
};

/** Whether the engine surely keeps this literal's text (else it is loaded to see). */
export function inEngineForm(nt: string): boolean {
  const lang = /"@([^"]*)$/.exec(nt);
  if (lang) return lang[1] === lang[1]!.toLowerCase();
  const typed = /"\^\^<([^>]*)>$/.exec(nt);
  if (!typed) return true;
  const datatype = typed[1]!;
  if (!datatype.startsWith(XSD)) return true;
  const form = ENGINE_FORM[datatype];
  if (!form) return false;
  // The lexical form unescaped is what the pattern is about; one with an escape is left to the engine.
  const lexical = nt.slice(1, nt.length - typed[0].length);
  return !lexical.includes('\\') && form.test(lexical);
}

