import { describe, expect, it } from 'vitest';
import { essenceOf, parseContentType } from '../../src/util/content-type.ts';
import { extractorFor } from '../../src/extract/registry.ts';
import { formatFromParam } from '../../src/query/index.ts';

describe('essenceOf, the one reading of a media type without its parameters', () => {
  it('drops parameters, spaces and case however the header was written', () => {
    for (const written of ['text/turtle', 'Text/Turtle', ' text/turtle ', 'text/turtle;charset=utf-8', 'TEXT/TURTLE ; charset="UTF-8"; q=0.9']) {
      expect(essenceOf(written), written).toBe('text/turtle');
    }
    expect(essenceOf('')).toBe('');
    expect(essenceOf('; charset=utf-8')).toBe('');
  });

  it('is what parseContentType, the extractor registry and the result formats go by', () => {
    const header = 'Application/LD+JSON ; profile="http://www.w3.org/ns/json-ld#expanded"; charset=UTF-8';
    expect(parseContentType(header)).toEqual({ mediaType: essenceOf(header), charset: 'UTF-8' });
    expect(extractorFor(header)?.name).toBe('json-ld');
    expect(formatFromParam('Application/SPARQL-Results+JSON; charset=utf-8', 'select')).toBe(formatFromParam('application/sparql-results+json', 'select'));
  });
});
