import type { Command } from 'commander';

/** Every CLI command registers itself here; main.ts wires them into one program. */
export const commands: Array<(program: Command) => void> = [
];
