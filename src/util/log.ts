/**
 * Logging: pino, the logger fastify already brings, so the server's request lines and the crawler's
 * per-URL lines are the same JSON Lines (one object a line: time, level, msg and fields), ready for
 * journald, jq or a log shipper. Library code takes a `log` option (as Crawlee's crawlers do) and falls
 * back to the process default, which is silent until a program configures it: a library that writes to
 * its caller's stderr unasked is a nuisance. The CLI configures it from --log-level and --log-file; on a
 * terminal the lines are pretty-printed (pino-pretty), anywhere else they stay JSON.
 */
import fs from 'node:fs';
import path from 'node:path';
import { pino, type Logger } from 'pino';
import { build as pretty } from 'pino-pretty';
import { UserError } from './errors.ts';
import { LOG_LEVELS, type LogLevel } from './log-levels.ts';

export type { Logger };

export { LOG_LEVELS, type LogLevel } from './log-levels.ts';

let current: Logger = pino({ level: 'silent' });

/** The process default logger (silent unless `configureLogging` was called). */
export function defaultLog(): Logger {
  return current;
}

export interface LoggingOptions {
  /** Default: `info` when writing to a file, `warn` on stderr (where progress and summaries go). */
  level?: LogLevel;
  /** Append JSON Lines here instead of writing them to stderr. */
  file?: string;
}

/**
 * Sets the process default logger. A file is opened for appending (synchronously, so that nothing is lost
 * when a command exits right after its last line); its folder must exist.
 */
export function configureLogging(o: LoggingOptions): Logger {
  if (o.level !== undefined && !LOG_LEVELS.includes(o.level)) throw new UserError(`log level '${o.level}' is not one of ${LOG_LEVELS.join(', ')}`);
  let destination: pino.DestinationStream;
  if (o.file) {
    const dir = path.dirname(path.resolve(o.file));
    if (!fs.existsSync(dir)) throw new UserError(`cannot write the log file '${o.file}': its folder ${dir} does not exist`, 73);
    try {
      fs.closeSync(fs.openSync(o.file, 'a'));
    } catch (e) {
      throw new UserError(`cannot write the log file '${o.file}': ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 73);
    }
    destination = pino.destination({ dest: o.file, append: true, sync: true });
  } else if (process.stderr.isTTY) {
    // A person reading a terminal gets one readable line per entry; files and pipes keep the JSON.
    destination = pretty({ destination: 2, sync: true, colorize: true, singleLine: true, errorLikeObjectKeys: ['err'], translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
  } else destination = pino.destination({ dest: 2, sync: true });
  current = pino({ level: o.level ?? (o.file ? 'info' : 'warn'), base: { pid: process.pid } }, destination);
  return current;
}
