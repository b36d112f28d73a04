import { Command, CommanderError, Help, Option } from 'commander';
import { commandModules, type CommandModule, type CommandSummary } from './commands/index.ts';
import { labCommand } from './commands/lab.ts';
import path from 'node:path';
import { OptionError, UserError, isPermissionDenied, isStorageFailure, permissionMessage, storageExitCode } from '../util/errors.ts';
import { VERSION } from '../fetch/accept.ts';
import { EXIT } from '../util/exit-codes.ts';
import { PROGRESS_MODES, setProgressMode, type ProgressMode } from './progress.ts';
import { LOG_LEVELS, type LogLevel } from '../util/log-levels.ts';
import { applyConfig, findConfigFile, readConfigFile } from './config.ts';

/**
 * The program, with the command modules `args` (the command line after `node datamonitor`) needs
 * registered for real, or all of them; every other command is a placeholder that only lists in
 * --help. Start-up is what a command pays before it does anything: `--version` loads no module.
 */
export async function buildProgram(args: string[] | 'all' = 'all'): Promise<Command> {
  const program = new Command('datamonitor')
    .description('Capture, archive and query the changing Web of Data')
    .version(VERSION)
    .showHelpAfterError('(run with --help for the options)')
    .addOption(new Option('--progress <mode>', 'progress on stderr: a redrawn bar (default on a terminal), plain timestamped lines (default otherwise), or none').choices(PROGRESS_MODES))
    .addOption(new Option('--log-level <level>', 'log lines at this level and above (default: info into --log-file, warn on stderr)').choices(LOG_LEVELS))
    .option('--log-file <file>', 'append JSON Lines logs here (one line per URL fetched, server requests, cycles) instead of stderr')
    .option('--config <file>', 'settings used every time (JSON: flag names to values); default $DATAMONITOR_CONFIG, else ./datamonitor.json if present')
    .exitOverride();
  const placeholders = new Map<Command, string>();
  program.configureHelp({
    subcommandTerm(cmd) {
      const term = placeholders.get(cmd);
      return term === undefined ? Help.prototype.subcommandTerm.call(this, cmd) : `${cmd.name()}${term ? ` ${term}` : ''}`;
    },
  });
  program.hook('preAction', async (_program, action) => {
    if (placeholders.has(action)) return;
    const data = (action.opts() as { data?: unknown }).data;
    commandDataDir = typeof data === 'string' ? path.resolve(data) : undefined;
    setProgressMode(program.opts().progress as ProgressMode | undefined);
    const { logLevel, logFile } = program.opts() as { logLevel?: LogLevel; logFile?: string };
    // pino and pino-pretty (~100 ms of CPU to load) only when asked for, or when the command logs anyway.
    if (logLevel || logFile) (await import('../util/log.ts')).configureLogging({ level: logLevel, file: logFile });
    const file = findConfigFile(program.opts().config as string | undefined);
    if (file) applyConfig(program, action, readConfigFile(file));
  });
  const wanted = args === 'all' ? commandModules : modulesFor(program, args);
  const loaded = new Map(await Promise.all(wanted.map(async (m) => [m, await m.load()] as const)));
  for (const m of commandModules) {
    const module = loaded.get(m);
    if (module) module.register(program);
    else for (const c of m.commands) placeholders.set(placeholder(program, c), c.term);
  }
  return program;
}

/** The --data of the command being run: what an error that does not name its file is about. */
let commandDataDir: string | undefined;

/** Thrown by a placeholder's action: the command line named a command buildProgram did not load. */
class NotLoaded extends Error {}

function placeholder(program: Command, c: CommandSummary): Command {
  const words = c.path.split(' ');
  const parent = words.length > 1 ? labCommand(program) : program;
  // It takes anything, --help included, so that whatever reaches it ends in a reload, not in an error about the placeholder's (absent) options.
  return parent.command(words[words.length - 1]).description(c.summary)
    .helpOption(false).allowUnknownOption().allowExcessArguments().argument('[args...]')
    .action(() => { throw new NotLoaded(); });
}

/**
 * The modules of the command the command line names (`query …`, `lab recrawl …`, `help query`),
 * read before commander parses it: the global options are skipped by their definitions, so a
 * value (`--config query.json`) is not taken for a command.
 */
export function modulesFor(program: Command, args: string[]): CommandModule[] {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 3; i++) {
    const a = args[i];
    if (a === '--') break;
    if (a.startsWith('-')) {
      const option = words.length === 0 && !a.includes('=') ? program.options.find((o) => o.long === a || o.short === a) : undefined;
      if (option?.required) i++; // its value
      continue;
    }
    words.push(a);
  }
  if (words[0] === 'help') words.shift();
  const named = (path: string) => path === words[0] || path === `${words[0]} ${words[1]}`;
  return commandModules.filter((m) => m.commands.some((c) => named(c.path)));
}

export async function main(argv: string[]): Promise<void> {
  try {
    try {
      await (await buildProgram(argv.slice(2))).parseAsync(argv);
    } catch (e) {
      // The command line reached a command modulesFor did not see (a safety net: it sees them all): load every command and parse again.
      if (!(e instanceof NotLoaded)) throw e;
      await (await buildProgram('all')).parseAsync(argv);
    }
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end with 0; an unknown option, a missing argument or a bad value is a usage error.
      process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    if (e instanceof UserError) {
      process.stderr.write(`datamonitor: ${e instanceof OptionError ? e.flagMessage : e.message}\n`);
      process.exitCode = e.exitCode;
      return;
    }
    const damaged = await import('../store/damaged.ts');
    if (damaged.isDamagedDatabase(e) && commandDataDir) {
      // SQLite's error names no file: the archive's files are checked to say which.
      process.stderr.write(`datamonitor: ${damaged.damagedStoreError(commandDataDir, e).message}\n`);
      process.exitCode = EXIT.noInput;
      return;
    }
    if (isPermissionDenied(e)) {
      process.stderr.write(`datamonitor: ${permissionMessage(e, commandDataDir)}\n`);
      process.exitCode = EXIT.noPermission;
      return;
    }
    if (isStorageFailure(e)) {
      // Any command that writes (an index catch-up, a cycle's bookkeeping) can meet a full disk, or lose its database.
      const lost = storageExitCode(e) === EXIT.tempFail;
      process.stderr.write(lost
        ? `datamonitor: ${(e as Error).message}. Nothing written was lost: run the command again once the database answers.\n`
        : `datamonitor: could not write to disk: ${(e as Error).message}. Free some space and run the command again.\n`);
      process.exitCode = storageExitCode(e);
      return;
    }
    process.stderr.write(`datamonitor: unexpected error (a bug: please report it with this text): ${(e as Error).stack ?? e}\n`);
    process.exitCode = EXIT.software;
  }
}
