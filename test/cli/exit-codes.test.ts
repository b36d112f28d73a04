import path from 'node:path';
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../src/util/exit-codes.ts';
import { repoRoot, tempDir } from '../helpers.ts';

/** Exit statuses follow sysexits(3) in every command, so scripts and service managers can act on them. */

const run = (args: string[]) =>
  new Promise<{ code: number | null; err: string }>((resolve) => {
    const p = spawn(process.execPath, [path.join(repoRoot, 'bin/datamonitor.mjs'), ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    p.stderr.on('data', (d) => (err += d));
    p.on('exit', (code) => resolve({ code, err }));
  });

// One of each kind (capture, re-crawl, reading, serving, lab): every process start costs a second.
const COMMANDS = ['crawl', 'daemon', 'query', 'serve', 'worker', 'lab recrawl'];

describe('exit statuses', () => {
  it('an unknown option is a usage error (64) in every command, and says so', async () => {
    const results = await Promise.all(COMMANDS.map((c) => run([...c.split(' '), '--no-such-flag'])));
    results.forEach((r, i) => {
      expect(r.code, COMMANDS[i]).toBe(EXIT.usage);
      expect(r.err, COMMANDS[i]).toMatch(/unknown option '--no-such-flag'/);
    });
  }, 120_000);

  it('a wrong value is a usage error (64); --help and --version succeed (0)', async () => {
    const [badDepth, badDelay, help, version] = await Promise.all([
      run(['crawl', 'http://127.0.0.1:9/', '--data', tempDir(), '--depth', '-1']),
      run(['run', '--data', tempDir(), '--delay', 'soon']),
      run(['crawl', '--help']),
      run(['--version']),
    ]);
    expect(badDepth.code).toBe(EXIT.usage);
    expect(badDepth.err).toMatch(/--depth/);
    expect(badDelay.code).toBe(EXIT.usage);
    expect(help.code).toBe(EXIT.ok);
    expect(version.code).toBe(EXIT.ok);
  }, 60_000);

  it('a missing archive or input file is EX_NOINPUT (66)', async () => {
    // (The other reading commands share stats' store opening.)
    const missing = path.join(tempDir(), 'none');
    const results = await Promise.all([['stats'], ['query', 'ASK {}'], ['verify']].map((a) => run([...a, '--data', missing])));
    for (const r of results) {
      expect(r.code, r.err).toBe(EXIT.noInput);
      expect(r.err).toMatch(/no (versioned )?archive in/);
    }
    const imp = await run(['import', '--data', tempDir(), path.join(missing, 'x.warc.gz')]);
    expect(imp.code).toBe(EXIT.noInput);
  }, 60_000);
});
