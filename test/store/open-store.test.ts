/**
 * `--db postgres://…` in an install without PostgreSQL support: a checkout of datamonitor whose
 * node_modules lacks `pg` (every other package linked from this one's) is the build a user would
 * have after leaving pg out. Only that gets "not available in this build"; a pg that is there but
 * broken (its own dependency missing) is shown as the failure it is.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { repoRoot, tempDir } from '../helpers.ts';

const modules = path.join(repoRoot, 'node_modules');

/** A copy of the checkout (src, bin, package.json) whose node_modules links every package of this one but those in `drop`; `copy` packages are real copies, resolving their own dependencies inside the copy. */
function install(drop: string[], copy: string[] = []): string {
  const root = tempDir('dm-install-');
  for (const p of ['src', 'bin', 'package.json']) fs.cpSync(path.join(repoRoot, p), path.join(root, p), { recursive: true });
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(modules)) {
    if (drop.includes(name)) continue;
    const to = path.join(root, 'node_modules', name);
    if (copy.includes(name)) fs.cpSync(fs.realpathSync(path.join(modules, name)), to, { recursive: true });
    else fs.symlinkSync(fs.realpathSync(path.join(modules, name)), to);
  }
  return root;
}

function run(root: string, args: string[]): Promise<{ code: number | null; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [path.join(root, 'bin/datamonitor.mjs'), ...args], { cwd: root });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => resolve({ code, err }));
  });
}

// Port 1: nothing listens there, and nothing is reached anyway when the store cannot load.
const DB = 'postgres://u:secret@127.0.0.1:1/test';

describe('openStore when PostgreSQL support cannot be loaded', () => {
  it('without the pg package: says so, what to do, exit 64, no password shown', async () => {
    const root = install(['pg']);
    const r = await run(root, ['stats', '--data', path.join(root, 'data'), '--db', DB]);
    expect(r.err).toMatch(/this build has none \(the 'pg' package is not installed\): install it \(npm install pg\), or leave --db out/);
    expect(r.err).toContain('postgres://u:***@127.0.0.1:1/test');
    expect(r.err).not.toContain('secret');
    expect(r.code).toBe(64);
  });

  it('with pg installed but broken (its pg-pool missing): the real error, not "not available"', async () => {
    const root = install(['pg-pool'], ['pg']);
    const r = await run(root, ['stats', '--data', path.join(root, 'data'), '--db', DB]);
    expect(r.err).toContain("Cannot find module 'pg-pool'");
    expect(r.err).not.toMatch(/not installed|this build has none/);
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBe(64);
  });
});
