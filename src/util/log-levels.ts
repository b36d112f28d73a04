/** pino's levels, apart from log.ts: the CLI names them in --help without loading pino (bench/STARTUP.md). */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
