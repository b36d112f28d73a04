import { Command, CommanderError, Option } from 'commander';
import { commands } from './commands/index.ts';
import { OptionError, UserError, isStorageFailure } from '../util/errors.ts';
import { VERSION } from '../fetch/accept.ts';
import { EXIT } from '../util/exit-codes.ts';
import { PROGRESS_MODES, setProgressMode, type ProgressMode } from './progress.ts';
import { LOG_LEVELS, configureLogging, type LogLevel } from '../util/log.ts';
import { applyConfig, findConfigFile, readConfigFile } from './config.ts';

export function buildProgram(): Command {
  const program = new Command('datamonitor')
    .description('Capture, archive and query the changing Web of Data')
    .version(VERSION)
    .showHelpAfterError('(run with --help for the options)')
    .addOption(new Option('--progress <mode>', 'progress on stderr: a redrawn bar (default on a terminal), plain timestamped lines (default otherwise), or none').choices(PROGRESS_MODES))
    .addOption(new Option('--log-level <level>', 'log lines at this level and above (default: info into --log-file, warn on stderr)').choices(LOG_LEVELS))
    .option('--log-file <file>', 'append JSON Lines logs here (one line per URL fetched, server requests, cycles) instead of stderr')
    .option('--config <file>', 'settings used every time (JSON: flag names to values); default $DATAMONITOR_CONFIG, else ./datamonitor.json if present')
    .exitOverride();
  program.hook('preAction', (_program, action) => {
    setProgressMode(program.opts().progress as ProgressMode | undefined);
    const { logLevel, logFile } = program.opts() as { logLevel?: LogLevel; logFile?: string };
    if (logLevel || logFile) configureLogging({ level: logLevel, file: logFile });
    const file = findConfigFile(program.opts().config as string | undefined);
    if (file) applyConfig(program, action, readConfigFile(file));
  });
  for (const register of commands) register(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
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
    if (isStorageFailure(e)) {
      // Any command that writes (an index catch-up, a cycle's bookkeeping) can meet a full disk.
      process.stderr.write(`datamonitor: could not write to disk: ${(e as Error).message}. Free some space and run the command again.\n`);
      process.exitCode = EXIT.ioError;
      return;
    }
    process.stderr.write(`datamonitor: unexpected error (a bug: please report it with this text): ${(e as Error).stack ?? e}\n`);
    process.exitCode = EXIT.software;
  }
}
