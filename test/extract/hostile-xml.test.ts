import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENTITY_LIMITS } from '../../src/extract/rdfxml.ts';
import { countingServer, errors, extractText, lines } from './helpers.ts';

const EX = 'http://example.org/';
const RDF_OPEN = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="${EX}">`;

describe('hostile XML', () => {
  let server: Awaited<ReturnType<typeof countingServer>>;
  beforeAll(async () => {
    server = await countingServer({
      '/secret.txt': { type: 'text/plain', body: 'SECRET' },
      '/evil.dtd': { type: 'application/xml-dtd', body: '<!ENTITY leaked "LEAKED">' },
    });
  });
  afterAll(() => server.close());

  it('billion laughs is refused with a diagnostic, nothing expanded', async () => {
    const entities = ['<!ENTITY lol0 "lol">'];
    for (let i = 1; i <= 9; i++) entities.push(`<!ENTITY lol${i} "${`&lol${i - 1};`.repeat(10)}">`);
    const body = `<?xml version="1.0"?><!DOCTYPE rdf:RDF [${entities.join('\n')}]>${RDF_OPEN}<rdf:Description rdf:about="${EX}a"><ex:p>&lol9;</ex:p></rdf:Description></rdf:RDF>`;
    const r = await extractText('application/rdf+xml', body);
    expect(r.quads).toEqual([]);
    expect(errors(r)[0].message).toMatch(/expands beyond/);
  });

  it('a large entity referenced many times hits the total expansion bound', async () => {
    const big = 'x'.repeat(ENTITY_LIMITS.maxValueLength - 10);
    const refs = '&big;'.repeat(Math.ceil(ENTITY_LIMITS.maxTotalExpansion / big.length) + 2);
    const body = `<!DOCTYPE rdf:RDF [<!ENTITY big "${big}">]>${RDF_OPEN}<rdf:Description rdf:about="${EX}a"><ex:p>1</ex:p></rdf:Description><rdf:Description rdf:about="${EX}b"><ex:p>${refs}</ex:p></rdf:Description></rdf:RDF>`;
    const r = await extractText('application/rdf+xml', body);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p 1`]);
    expect(errors(r)[0].message).toMatch(/entity references expand beyond/);
  });

  it('entities used for namespaces, as RDF/XML documents do, still work (nested too)', async () => {
    const body = `<!DOCTYPE rdf:RDF [<!ENTITY ex "${EX}"><!ENTITY exa "&ex;a">]>${RDF_OPEN}<rdf:Description rdf:about="&exa;"><ex:p rdf:resource="&ex;b"/></rdf:Description></rdf:RDF>`;
    const r = await extractText('application/rdf+xml', body);
    expect(errors(r)).toEqual([]);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p ${EX}b`]);
  });

  it('external entities (general and parameter) are never fetched', async () => {
    const body = `<?xml version="1.0"?>
<!DOCTYPE rdf:RDF [
  <!ENTITY xxe SYSTEM "${server.base}/secret.txt">
  <!ENTITY pub PUBLIC "-//X//Y" "${server.base}/secret.txt">
  <!ENTITY % dtd SYSTEM "${server.base}/evil.dtd"> %dtd;
]>
${RDF_OPEN}<rdf:Description rdf:about="${EX}a"><ex:p>1</ex:p></rdf:Description>
<rdf:Description rdf:about="${EX}b"><ex:p>&xxe;</ex:p></rdf:Description>
<rdf:Description rdf:about="${EX}c"><ex:p>&leaked;</ex:p></rdf:Description></rdf:RDF>`;
    const r = await extractText('application/rdf+xml', body);
    // Give any stray request time to arrive before counting.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.total()).toBe(0);
    expect(JSON.stringify(r.quads)).not.toMatch(/SECRET|LEAKED/);
    expect(lines(r.quads)).toEqual([`${EX}a ${EX}p 1`]);
    expect(r.diagnostics.some((d) => d.level === 'warning' && d.message.includes('not fetched'))).toBe(true);
    expect(errors(r)).toHaveLength(1);
  });

  it('an XML doctype on a document served as application/xml is not fetched either', async () => {
    const body = `<?xml version="1.0"?><!DOCTYPE foo SYSTEM "${server.base}/evil.dtd"><foo>&leaked;</foo>`;
    const r = await extractText('application/xml', body);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.total()).toBe(0);
    expect(r.quads).toEqual([]);
  });
});
