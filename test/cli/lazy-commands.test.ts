import { describe, expect, it } from 'vitest';
import type { Command } from 'commander';
import { buildProgram, modulesFor } from '../../src/cli/main.ts';
import { commandModules } from '../../src/cli/commands/index.ts';

// main.ts registers only the module of the command being run; every other command is listed from
// the summaries in src/cli/commands/index.ts. These tests fail when those summaries no longer say
// what the modules register (a command added, renamed, re-described, its arguments changed).

const sub = (program: Command, name: string) => program.commands.find((c) => c.name() === name)!;

describe('commands loaded on demand', () => {
  it('`datamonitor --help` and `datamonitor lab --help` read the same with no command module loaded as with all of them', async () => {
    const all = await buildProgram('all');
    const none = await buildProgram([]);
    expect(none.helpInformation()).toBe(all.helpInformation());
    expect(sub(none, 'lab').helpInformation()).toBe(sub(all, 'lab').helpInformation());
    const listed = (p: Command): string[] => p.commands.flatMap((c) => c.name() === 'lab' ? c.commands.map((l) => `lab ${l.name()}`) : [c.name()]);
    expect(listed(none)).toEqual(commandModules.flatMap((m) => m.commands.map((c) => c.path)));
  });

  it('each command, when named, is registered from its module with its own options', async () => {
    for (const m of commandModules) {
      for (const c of m.commands) {
        const words = c.path.split(' ');
        const program = await buildProgram([...words, '--help']);
        const command = words.reduce((p, w) => sub(p, w), program);
        const real = words.reduce((p, w) => sub(p, w), await buildProgram('all'));
        expect(command.helpInformation(), c.path).toBe(real.helpInformation());
      }
    }
  });

  it('finds the command past the global options and their values, and after `help`', async () => {
    const program = await buildProgram([]);
    const paths = (args: string[]) => modulesFor(program, args).flatMap((m) => m.commands.map((c) => c.path));
    expect(paths(['--version'])).toEqual([]);
    expect(paths(['--help'])).toEqual([]);
    expect(paths(['--config', 'query', 'stats', '--data', 'x'])).toEqual(['stats']);
    expect(paths(['--progress', 'none', 'lab', 'recrawl', '--json'])).toEqual(['lab recrawl']);
    expect(paths(['--progress=none', 'query', 'SELECT * WHERE {?s ?p ?o}'])).toEqual(['query']);
    expect(paths(['help', 'run'])).toEqual(['add', 'due', 'run', 'daemon']);
    expect(paths(['lab'])).toEqual([]);
  });
});
