import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtemp, mkdir, writeFile, rm, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadSiteGraph } from '../../src/lab/ordering/site-loader.ts';
import { runMainOk } from '../helpers.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'dm-site-'));
  await mkdir(path.join(dir, 'guide'));
  await writeFile(
    path.join(dir, 'index.html'),
    `<!doctype html><html><head><title>The  Manual</title><style>.a{}</style><script>var hidden = 1;</script></head>
     <body><p>one two three four five six seven eight nine ten eleven twelve
     <a href="guide/vacuum.html#top">Routine &amp; vacuuming</a> after1 after2 after3 after4 after5 after6 after7 after8 after9 after10 after11</p>
     <a href="mailto:x@y.z">mail</a> <a href="https://other.test/x">elsewhere</a> <a href="missing.html">gone</a></body></html>`,
  );
  await writeFile(path.join(dir, 'guide', 'vacuum.html'), '<html><head><title>Vacuum</title></head><body><a href="../index.html">Home</a> <a href="./">dir</a></body></html>');
  await writeFile(path.join(dir, 'style.css'), 'body {}');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('site loader', () => {
  it('reads each HTML file as a page served at the base, with title, text and links in context', async () => {
    const g = await loadSiteGraph(dir, { base: 'http://pg.local/' });
    expect(g.start).toBe('http://pg.local/index.html');
    expect(g.pages.map((p) => p.url).sort()).toEqual(['http://pg.local/guide/vacuum.html', 'http://pg.local/index.html']);
    const index = g.pages.find((p) => p.url === g.start)!;
    expect(index.title).toBe('The Manual');
    expect(index.text).not.toContain('hidden');
    expect(index.links.map((l) => l.url)).toEqual(['http://pg.local/guide/vacuum.html', 'https://other.test/x', 'http://pg.local/missing.html']);
    const link = index.links[0];
    expect(link.anchorText).toBe('Routine & vacuuming');
    expect(link.context).toBe('three four five six seven eight nine ten eleven twelve after1 after2 after3 after4 after5 after6 after7 after8 after9 after10');
    const vacuum = g.pages.find((p) => p.url.endsWith('vacuum.html'))!;
    expect(vacuum.links.map((l) => l.url)).toEqual(['http://pg.local/index.html', 'http://pg.local/guide/']);
  });

  it('explains a missing directory or start page', async () => {
    await expect(loadSiteGraph(path.join(dir, 'nope'))).rejects.toThrow(/not a directory/);
    await expect(loadSiteGraph(path.join(dir, 'guide'))).rejects.toThrow(/start page/);
  });
});

describe('datamonitor lab ordering', () => {
  const cli = (args: string[]) => runMainOk(['lab', 'ordering', ...args]);

  it('prints JSON curves and writes an SVG plot', async () => {
    const plot = path.join(dir, 'o.svg');
    const out = await cli(['--site', dir, '--base', 'http://pg.local/', '--top', '1', '--query', 'vacuum', '--json', '--plot', plot]);
    const r = JSON.parse(out);
    expect(r.repository).toMatchObject({ pages: 2, links: 2, start: 'http://pg.local/index.html' });
    expect(r.orderings.map((o: { ordering: string }) => o.ordering)).toEqual(['bfs', 'backlink', 'pagerank', 'location', 'similarity', 'random']);
    const svg = await readFile(plot, 'utf8');
    expect(svg).toMatch(/^<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect((svg.match(/<polyline/g) ?? []).length).toBe(6);
  });

  it('refuses conflicting or missing arguments with a clear message', async () => {
    await expect(cli(['--top', '3'])).rejects.toThrow(/--site DIR.*--data DIR/);
    await expect(cli(['--site', dir, '--top', '3', '--threshold', '2'])).rejects.toThrow(/not both/);
    await expect(cli(['--site', dir, '--model', 'fast'])).rejects.toThrow(/--model must be one of/);
    await expect(cli(['--data', dir])).rejects.toThrow(/no archive in/);
  });
});
