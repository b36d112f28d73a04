import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { siblingModule } from '../../src/util/sibling.ts';
import { bootable } from '../../src/util/ts-thread.ts';
import { bootedEntries } from '../setup/bundle-sources.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('one program, from the sources or from a build', () => {
  it('a worker module beside the caller is the .ts file under tsx and vitest, the compiled .js file in dist/', () => {
    expect(siblingModule('file:///p/src/crawler/analyse/pool.ts', './worker.ts').href).toBe('file:///p/src/crawler/analyse/worker.ts');
    expect(siblingModule('file:///p/dist/crawler/analyse/pool.js', './worker.ts').href).toBe('file:///p/dist/crawler/analyse/worker.js');
    expect(siblingModule('file:///p/dist/extract/registry.js', './html/index.ts').href).toBe('file:///p/dist/extract/html/index.js');
    expect(siblingModule('file:///p/dist/a/b.js', '../c/d.mts').href).toBe('file:///p/dist/c/d.mjs');
    // A directory named like a TypeScript file changes nothing: only the file's own extension counts.
    expect(siblingModule('file:///p/my.ts/dist/a.js', './w.ts').href).toBe('file:///p/my.ts/dist/w.js');
    // This very file runs as TypeScript: its sibling is a .ts file, and it exists.
    const here = siblingModule(import.meta.url, './entry.test.ts');
    expect(fs.existsSync(here)).toBe(true);
  });

  it('the command runs the sources in a checkout (even beside a build), the build in the package or when asked, and says what to do without either', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dm-entry-'));
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    const datamonitor = (env: Record<string, string> = {}) => spawnSync(process.execPath, [path.join(dir, 'bin/datamonitor.mjs'), 'x'], { encoding: 'utf8', env: { ...process.env, ...env } });
    try {
      fs.mkdirSync(path.join(dir, 'bin'));
      fs.copyFileSync(path.join(ROOT, 'bin/datamonitor.mjs'), path.join(dir, 'bin/datamonitor.mjs'));
      write('package.json', '{ "type": "module" }');
      // Neither dist/ nor tsx (a checkout after `npm ci --omit=dev --ignore-scripts`, here without src/ too).
      const p = datamonitor();
      expect(p.status).toBe(70);
      expect(p.stderr).toMatch(/no build \(dist\/\).*run `npm ci` \(it builds\), or `npm run build`/);
      // Each build has early.js, run first with the command line (what a command starts before parsing it), then main.js.
      const early = (name: string) => `export function startEarly(args) { process.stdout.write('${name} early ' + args.join(' ') + ', '); }\n`;
      // The package: dist/ only, as tsc built it.
      write('dist/cli/early.js', early('dist'));
      write('dist/cli/main.js', "export async function main(argv) { process.stdout.write('dist ' + argv.slice(2).join(' ')); }\n");
      expect(datamonitor().stdout).toBe('dist early x, dist x');
      // The package with the build's bundle (scripts/bundle.mjs): the bundle runs.
      write('dist/bundle/early.js', early('bundle'));
      write('dist/bundle/main.js', "export async function main(argv) { process.stdout.write('bundle ' + argv.slice(2).join(' ')); }\n");
      expect(datamonitor().stdout).toBe('bundle early x, bundle x');
      // A checkout: src/ and tsx (the TypeScript below is not JavaScript: only tsx runs it).
      write('src/cli/early.ts', "export function startEarly(args: string[]): void { process.stdout.write(`src early ${args.join(' ')}, `); }\n");
      write('src/cli/main.ts', "export async function main(argv: string[]): Promise<void> { process.stdout.write(`src ${argv.slice(2).join(' ')}`); }\n");
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
      expect(datamonitor().stdout).toBe('src early x, src x');
      expect(datamonitor({ DATAMONITOR_DIST: '1' }).stdout).toBe('bundle early x, bundle x');
      // Under `vitest run`: the run's bundle of this checkout's sources (test/setup/bundle-sources.ts),
      // never another checkout's (this test's own process names the real checkout's: 'src x' above).
      write('.cache/b/cli/early.mjs', early('run'));
      write('.cache/b/cli/main.mjs', "export async function main(argv) { process.stdout.write('run ' + argv.slice(2).join(' ')); }\n");
      expect(datamonitor({ DATAMONITOR_SRC_BUNDLES: path.join(dir, '.cache/b') }).stdout).toBe('run early x, run x');
      expect(datamonitor({ DATAMONITOR_SRC_BUNDLES: path.join(dir, '.cache/none') }).stdout).toBe('src early x, src x');
      expect(datamonitor({ DATAMONITOR_SRC_BUNDLES: path.join(dir, '.cache/b'), DATAMONITOR_DIST: '1' }).stdout).toBe('bundle early x, bundle x');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a thread or query process boots the run\'s bundle of its module when there is one, else the module', () => {
    const worker = new URL('../../src/archive/warc-writer-worker.ts', import.meta.url);
    const saved = process.env.DATAMONITOR_SRC_BUNDLES;
    try {
      // Every module the sources boot as a thread, found where they name it; and the CLI.
      expect(bootedEntries()).toEqual(expect.arrayContaining(['archive/warc-writer-worker.ts', 'crawler/analyse/worker.ts', 'query/engine/worker.ts', 'cli/main.ts']));
      if (saved) {
        // This run's (vitest.config.ts's globalSetup built it): plain JavaScript beside the other entries.
        const boot = bootable(worker);
        expect(boot.pathname).toBe(path.join(saved, 'archive/warc-writer-worker.mjs'));
        expect(fs.existsSync(boot)).toBe(true);
      }
      delete process.env.DATAMONITOR_SRC_BUNDLES;
      expect(bootable(worker).href).toBe(worker.href);
      process.env.DATAMONITOR_SRC_BUNDLES = os.tmpdir(); // not this checkout's
      expect(bootable(worker).href).toBe(worker.href);
      process.env.DATAMONITOR_SRC_BUNDLES = path.join(ROOT, '.cache/src-bundles/none'); // this checkout's, without that module
      expect(bootable(worker).href).toBe(worker.href);
    } finally {
      if (saved === undefined) delete process.env.DATAMONITOR_SRC_BUNDLES;
      else process.env.DATAMONITOR_SRC_BUNDLES = saved;
    }
  });
});
