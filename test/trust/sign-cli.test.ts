import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMain as cli, tempDir } from '../helpers.ts'; // in this process: each command line as a process cost a CPU-second of start-up

const TURTLE = `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
@prefix dct: <http://purl.org/dc/terms/> .
<#me> a foaf:Person ; foaf:name "Grace Hopper" ; foaf:knows <http://other.example/ada#me> .
<> dct:modified "2026-11-30"^^<http://www.w3.org/2001/XMLSchema#date> ; foaf:primaryTopic <#me> .
`;
const BASE = 'http://127.0.0.1:8080/people/grace';

describe('datamonitor sign / verify-proof', () => {
  it('generates a key, signs, verifies; one changed triple makes it "tampered"; another key is untrusted', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'me.key.json');
    const gen = await cli(['sign', '--generate-key', keyFile]);
    expect(gen.code).toBe(0);
    const did = gen.out.trim();
    expect(did).toMatch(/^did:key:z6Mk/);
    expect(fs.statSync(keyFile).mode & 0o077).toBe(0);
    fs.writeFileSync(path.join(dir, 'keys.txt'), `# people we trust\n${did}\n`);
    const doc = path.join(dir, 'grace.ttl');
    fs.writeFileSync(doc, TURTLE);

    const noBase = await cli(['sign', '--key', keyFile, doc]);
    expect(noBase.code).toBe(64);
    expect(noBase.err).toContain('uses relative IRIs (<#me>, <>)');
    expect(noBase.err).toContain('--base');

    const signedFile = path.join(dir, 'grace.signed.ttl');
    const signed = await cli(['sign', '--key', keyFile, '--base', BASE, '--out', signedFile, doc]);
    expect(signed.code).toBe(0);
    const ok = await cli(['verify-proof', '--trust', path.join(dir, 'keys.txt'), '--base', BASE, '--json', signedFile]);
    expect(ok.code).toBe(0);
    const [report] = JSON.parse(ok.out);
    expect(report.verdict).toBe('verified');
    expect(`did:key:${report.signedBy}`).toBe(did);

    // Verified only for the URL it was signed for: <#me> resolves elsewhere under another base.
    const elsewhere = await cli(['verify-proof', '--base', 'http://127.0.0.1:8080/people/mallory', signedFile]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.out).toContain('tampered');

    const tamperedFile = path.join(dir, 'grace.tampered.ttl');
    fs.writeFileSync(tamperedFile, fs.readFileSync(signedFile, 'utf8').replace('"Grace Hopper"', '"Grace Brewster Hopper"'));
    const bad = await cli(['verify-proof', '--trust', path.join(dir, 'keys.txt'), '--base', BASE, tamperedFile]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('tampered');

    const otherKey = path.join(dir, 'other.key.json');
    await cli(['sign', '--generate-key', otherKey]);
    const otherSigned = path.join(dir, 'grace.other.ttl');
    await cli(['sign', '--key', otherKey, '--base', BASE, '--out', otherSigned, doc]);
    const untrusted = await cli(['verify-proof', '--trust', path.join(dir, 'keys.txt'), '--base', BASE, otherSigned]);
    expect(untrusted.code).toBe(1);
    expect(untrusted.out).toContain('untrusted-key');
  });

  it('signs blank nodes, lists and _:x without a word about relative IRIs; never for the local file path', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'me.key.json');
    await cli(['sign', '--generate-key', keyFile]);
    const doc = path.join(dir, 'ada.ttl');
    fs.writeFileSync(doc, `@prefix foaf: <http://xmlns.com/foaf/0.1/> .
<http://127.0.0.1:8080/people/ada#me> foaf:knows [ foaf:name "Charles" ] ; foaf:nick ( "Ada" "Countess" ) .
_:x foaf:name "a friend" .
`);
    // Without --base the proof would hang from file:///…/ada.ttl: refused, and not for relative IRIs, which it has none of.
    for (const extra of [[], ['--detached', path.join(dir, 'ada.proof.ttl')]]) {
      const r = await cli(['sign', '--key', keyFile, ...extra, doc]);
      expect(r.code).toBe(64);
      expect(r.err).not.toContain('relative');
      expect(r.err).toContain('--base');
      expect(r.err).toContain('local path');
      expect(r.out).toBe('');
    }
    expect(fs.existsSync(path.join(dir, 'ada.proof.ttl'))).toBe(false);
    const signedFile = path.join(dir, 'ada.signed.ttl');
    expect((await cli(['sign', '--key', keyFile, '--base', 'http://127.0.0.1:8080/people/ada', '--out', signedFile, doc])).code).toBe(0);
    expect(fs.readFileSync(signedFile, 'utf8')).not.toContain('file:');
    const ok = await cli(['verify-proof', signedFile]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain('verified');
  });

  it('refuses to overwrite a key and says what to do about a missing key', async () => {
    const dir = tempDir();
    const keyFile = path.join(dir, 'k.json');
    fs.writeFileSync(keyFile, 'precious');
    const r = await cli(['sign', '--generate-key', keyFile]);
    expect(r.code).toBe(64);
    expect(fs.readFileSync(keyFile, 'utf8')).toBe('precious');
    const missing = await cli(['sign', path.join(dir, 'x.ttl')]);
    expect(missing.err).toContain('--generate-key');
  });
});
