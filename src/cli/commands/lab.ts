import type { Command } from 'commander';

/** The shared `lab` parent command: returns the existing one or creates it, so every lab can attach to it. */
export function labCommand(program: Command): Command {
  return program.commands.find((c) => c.name() === 'lab') ?? program.command('lab').description('research labs: simulations over crawl data');
}
