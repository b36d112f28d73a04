import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { Command } from 'commander';
import { bfsLinkStream, buildDebianSite, loadDebianSite, PORTAL_URL } from '../../src/lab/ordering/debian-site.ts';
import { register as registerSite } from '../../src/cli/commands/lab-site.ts';
import { register as registerReport } from '../../src/cli/commands/lab-report.ts';
import { UserError } from '../../src/util/errors.ts';
import { cacheProviderFor } from '../../src/lab/report/providers/cache.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-debian-site-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const hasDpkgDeb = (() => {
  try {
    execFileSync('dpkg-deb', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!hasDpkgDeb) console.warn('SKIPPED: dpkg-deb is not installed, so the .deb tests of lab site cannot build a package');

const H = 'http://tinydoc.docs.local/usr/share/doc/tinydoc/';
const page = (title: string, body: string, head = '') => `<html><head><title>${title}</title>${head}</head><body>${body}</body></html>`;

/** A documentation package: a start page that links html/ but not lcl/, an orphan, a redirect, and a second copy of lcl/. */
function tinyDeb(): string {
  const root = path.join(tmp, 'pkg');
  const doc = path.join(root, 'usr/share/doc/tinydoc');
  const files: Record<string, string> = {
    'index.html': page('Tiny', '<a href="html/index.html">manual</a>'),
    'html/index.html': page('Manual', '<a href="a.html">A</a> <a href="b.html">B</a> <a href="https://example.org/ext">upstream</a>'),
    'html/a.html': page('A', '<a href="b.html">B</a> <a href="index.html">up</a> <a href="sub/x.html#part">X</a>'),
    'html/b.html': page('B', '<a href="a.html">A</a> <a href="a.html">A again</a> <a href="r.html">moved</a>'),
    'html/sub/x.html': page('X', '<a href="../a.html">A</a>'),
    'html/r.html': page('Redirect', '<a href="a.html">a.html</a>', '<meta http-equiv="refresh" content="0;URL=a.html">'),
    'html/orphan.html': page('Orphan', 'no one links here'),
    'lcl/index.html': page('LCL', '<a href="c.html">C</a>'),
    'lcl/c.html': page('C', 'a leaf'),
    'z-copy/index.html': page('LCL', '<a href="c.html">C</a>'),
    'z-copy/c.html': page('C', 'a leaf'),
  };
  for (const [f, html] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(doc, f)), { recursive: true });
    fs.writeFileSync(path.join(doc, f), html);
  }
  fs.mkdirSync(path.join(root, 'DEBIAN'));
  fs.writeFileSync(path.join(root, 'DEBIAN/control'), 'Package: tinydoc\nVersion: 1.0-1\nArchitecture: all\nMaintainer: Lab <lab@example.org>\nDescription: a tiny documentation package\n');
  const deb = path.join(tmp, 'tinydoc_1.0-1_all.deb');
  execFileSync('dpkg-deb', ['--root-owner-group', '--build', root, deb], { stdio: 'ignore' });
  return deb;
}

// The breadth-first crawl: portal, the two roots, then level by level; every extracted link, repeats included.
const STREAM = [
  `${H}index.html`, `${H}lcl/index.html`, // portal
  `${H}html/index.html`, // index.html
  `${H}lcl/c.html`, // lcl/index.html
  `${H}html/a.html`, `${H}html/b.html`, 'https://example.org/ext', // html/index.html
  // lcl/c.html has no links
  `${H}html/b.html`, `${H}html/index.html`, `${H}html/sub/x.html`, // a.html
  `${H}html/a.html`, `${H}html/a.html`, `${H}html/r.html`, // b.html
  `${H}html/a.html`, // sub/x.html
  `${H}html/a.html`, // r.html
];

describe.skipIf(!hasDpkgDeb)('lab site --debian (a real .deb built with dpkg-deb)', () => {
  it('serves the package under its own host, links its unlinked HTML roots from the portal, and keeps the pages a crawl reaches', async () => {
    const deb = tinyDeb();
    const out = path.join(tmp, 'site');
    const m = buildDebianSite([deb], out);
    // lcl/ is not linked from the start page, so it is a root; z-copy/ is a byte-identical copy of it.
    expect(m.packages).toEqual([{ name: 'tinydoc', version: '1.0-1', dir: 'tinydoc', base: 'http://tinydoc.docs.local/', roots: [`${H}index.html`, `${H}lcl/index.html`] }]);
    const site = await loadDebianSite(out);
    expect(site.graph.start).toBe(PORTAL_URL);
    expect(site.files).toBe(12);
    expect(site.graph.pages.length).toBe(9);
    expect(site.unreachable).toBe(3);
    expect(site.redirects).toBe(1);
    expect([...bfsLinkStream(site.graph)]).toEqual(STREAM);

    const program = new Command();
    program.exitOverride();
    registerSite(program);
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((s: string) => (chunks.push(String(s)), true)) as typeof process.stdout.write;
    const out2 = path.join(tmp, 'site2');
    const trace = path.join(tmp, 'bfs.gz');
    try {
      await program.parseAsync(['node', 'datamonitor', 'lab', 'site', '--debian', deb, '--out', out2, '--trace-out', trace, '--json']);
    } finally {
      process.stdout.write = write;
    }
    const counts = JSON.parse(chunks.join(''));
    expect(counts).toMatchObject({ pages: 9, redirectPages: 1, unreachable: 3, trace: { requests: STREAM.length, distinct: new Set(STREAM).size, hosts: 2 } });
    expect(zlib.gunzipSync(fs.readFileSync(trace)).toString().trim().split('\n')).toEqual(STREAM);

    // The report's cache experiment reads the trace `lab site` wrote beside the site, as a real one.
    fs.copyFileSync(trace, path.join(out, 'bfs.urltrace.gz'));
    const r = await cacheProviderFor({ largeSite: out }).run({ quick: true, progress: () => {} });
    const knee = r.claims.find((c) => c.id === '002-knee-debian')!;
    expect(knee.data).toMatch(/^real trace: .*breadth-first virtual crawl of 1 Debian documentation package.*: 15 requests, 9 distinct URLs on 2 hosts$/);
    // 15 requests: too few for the rule, which names only that (not the hosts, not a generated trace).
    expect(knee.measured).toMatch(/Not the seed's setting: 15 requests \(testable from 1,000,000;[^;]*\)$/);
  });

  it('refuses a file that is not a .deb, and an output directory in use', () => {
    const bogus = path.join(tmp, 'bogus.deb');
    fs.writeFileSync(bogus, 'not an archive');
    expect(() => buildDebianSite([bogus], path.join(tmp, 'never'))).toThrow(/bogus\.deb is not a \.deb package/);
    fs.mkdirSync(path.join(tmp, 'used'));
    fs.writeFileSync(path.join(tmp, 'used', 'x'), '');
    expect(() => buildDebianSite([bogus], path.join(tmp, 'used'))).toThrow(/exists and is not empty/);
  });
});

describe('lab report --large-site', () => {
  it('names a missing directory, and one lab site did not build', async () => {
    const run = async (dir: string) => {
      const program = new Command();
      program.exitOverride();
      registerReport(program);
      await program.parseAsync(['node', 'datamonitor', 'lab', 'report', '--only', 'cache', '--large-site', dir, '--out', path.join(tmp, 'r.html')]);
    };
    await expect(run(path.join(tmp, 'missing'))).rejects.toThrow(UserError);
    await expect(run(path.join(tmp, 'missing'))).rejects.toThrow(/--large-site .*missing is not a directory: build one with `datamonitor lab site --debian/);
    fs.mkdirSync(path.join(tmp, 'plain'));
    await expect(run(path.join(tmp, 'plain'))).rejects.toThrow(/has no site\.json: it is not a site built by `datamonitor lab site/);
  });
});
