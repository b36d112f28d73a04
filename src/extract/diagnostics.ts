import type { Diagnostic } from './types.ts';

/** Messages from parsers can embed input (a token, an IRI): keep diagnostics small. */
const MAX_MESSAGE_LENGTH = 300;

/** A parse error as a diagnostic, with the line when the parser knows it. */
export function errorDiagnostic(error: unknown, line?: number): Diagnostic {
  const raw = error instanceof Error ? error.message : String(error);
  const message = raw.length > MAX_MESSAGE_LENGTH ? `${raw.slice(0, MAX_MESSAGE_LENGTH - 1)}…` : raw;
  return line === undefined ? { level: 'error', message } : { level: 'error', message, line };
}

/** Raised once per document when ctx.maxQuads stops collection; the quads before it are kept. */
export function quadLimitDiagnostic(maxQuads: number): Diagnostic {
  return { level: 'warning', message: `stopped after ${maxQuads} quads (maxQuads); the rest of the document was not kept` };
}

export function abortedDiagnostic(): Diagnostic {
  return { level: 'error', message: 'extraction aborted' };
}
