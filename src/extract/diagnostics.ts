import type { Diagnostic } from './types.ts';

/** Messages from parsers can embed input (a token, an IRI): keep diagnostics small. */
const MAX_MESSAGE_LENGTH = 300;

function clip(raw: string): string {
  return raw.length > MAX_MESSAGE_LENGTH ? `${raw.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : raw;
}

/** A parse error as a diagnostic (reason `parse-error`), with the line when the parser knows it. */
export function errorDiagnostic(error: unknown, line?: number): Diagnostic {
  // validate-iri names the IRI grammar it borrows ("according to RDF Turtle") even when the document is RDF/XML or JSON-LD.
  const raw = (error instanceof Error ? error.message : String(error)).replace('Invalid IRI according to RDF Turtle', 'invalid IRI');
  const message = clip(raw);
  return line === undefined ? { level: 'error', message, reason: 'parse-error' } : { level: 'error', message, line, reason: 'parse-error' };
}

/** Raised once per document when ctx.maxQuads stops collection; the quads before it are kept. */
export function quadLimitDiagnostic(maxQuads: number): Diagnostic {
  return { level: 'warning', message: `stopped after ${maxQuads} quads (maxQuads); the rest of the document was not kept` };
}

export function abortedDiagnostic(): Diagnostic {
  return { level: 'error', message: 'extraction aborted' };
}

/** Invalid UTF-8 was decoded as U+FFFD: the text (and any literal in it) is not what the bytes said. */
export function replacedBytesDiagnostic(count: number): Diagnostic {
  return { level: 'warning', message: `${count} invalid UTF-8 byte sequence${count === 1 ? '' : 's'} replaced by U+FFFD` };
}

/** Parse errors of a whole document name its syntax, so that the user knows which parser gave up (islands say where instead). */
export function inFormat(diagnostics: Diagnostic[], format: string): Diagnostic[] {
  return diagnostics.map((d) => (d.reason === 'parse-error' ? { ...d, message: `${format}: ${d.message}` } : d));
}
