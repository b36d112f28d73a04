import fs from 'node:fs';
import path from 'node:path';
import type { Command, Option } from 'commander';
import { UserError } from '../util/errors.ts';

/**
 * Settings a site uses every time (contact, proxy, politeness, data directory), kept in a JSON file
 * instead of retyped: `--config FILE`, else `$DATAMONITOR_CONFIG`, else `./datamonitor.json` when
 * it exists. Keys are the flags' long names (`"per-host": 2`, `"robots": false` for --no-robots);
 * `"commands": { "crawl": { … } }` holds settings for one command. A flag on the command line
 * always wins over the file, and the file over the built-in defaults.
 */
export const DEFAULT_CONFIG_FILE = 'datamonitor.json';

type Settings = Record<string, unknown>;

/** The parser of repeatable flags (`--include A --include B`): a config file gives them as a list or one value. */
export const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

interface ConfigFile {
  file: string;
  global: Settings;
  commands: Record<string, Settings>;
}

export function findConfigFile(explicit: string | undefined, env = process.env, cwd = process.cwd()): string | undefined {
  if (explicit) return explicit;
  if (env.DATAMONITOR_CONFIG) return env.DATAMONITOR_CONFIG;
  const local = path.join(cwd, DEFAULT_CONFIG_FILE);
  return fs.existsSync(local) ? local : undefined;
}

export function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`config file '${file}' cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): give --config FILE or remove DATAMONITOR_CONFIG`, 66);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new UserError(`config file '${file}' is not valid JSON: ${(e as Error).message}`, 65);
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) throw new UserError(`config file '${file}' must hold a JSON object of settings`, 65);
  const { commands = {}, ...global } = data as Settings & { commands?: unknown };
  if (!commands || typeof commands !== 'object' || Array.isArray(commands)) throw new UserError(`config file '${file}': "commands" must be an object of command names to settings`, 65);
  return { file, global, commands: commands as Record<string, Settings> };
}

/** The setting name of an option: its long flag without dashes and without `no-`. */
function settingName(o: Option): string | undefined {
  return o.long?.replace(/^--(no-)?/, '');
}

function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

function allSettingNames(program: Command): Set<string> {
  const out = new Set<string>();
  const walk = (c: Command) => {
    for (const o of c.options as readonly Option[]) {
      const n = settingName(o);
      if (n) out.add(n);
    }
    c.commands.forEach(walk);
  };
  walk(program);
  return out;
}

/** Fills the options of `cmd` that the command line left at their defaults from the config file. */
export function applyConfig(program: Command, cmd: Command, config: ConfigFile): void {
  const known = allSettingNames(program);
  const cmdName = commandPath(cmd);
  const scopes: Array<[string, Settings]> = [['', config.global]];
  for (const [name, settings] of Object.entries(config.commands)) {
    if (!settings || typeof settings !== 'object') throw new UserError(`config file '${config.file}': commands.${name} must be an object`, 65);
    scopes.push([name, settings]);
  }
  for (const [scope, settings] of scopes) {
    for (const key of Object.keys(settings)) {
      if (!known.has(key)) throw new UserError(`config file '${config.file}': unknown setting "${key}"${scope ? ` in commands.${scope}` : ''} (settings are flag names without dashes, e.g. "per-host", "contact")`, 65);
    }
  }
  // A command's own settings win over the global ones.
  const merged: Settings = { ...config.global, ...(config.commands[cmdName] ?? {}) };
  for (const o of cmd.options as readonly Option[]) {
    const name = settingName(o);
    if (!name || !(name in merged)) continue;
    const attr = o.attributeName();
    const source = cmd.getOptionValueSource(attr);
    if (source !== undefined && source !== 'default') continue; // the command line wins
    const raw = merged[name];
    let value: unknown;
    if (o.negate || (!o.required && !o.optional)) {
      if (typeof raw !== 'boolean') throw new UserError(`config file '${config.file}': "${name}" must be true or false`, 65);
      value = raw;
    } else if (Array.isArray(raw)) value = raw.map(String);
    else if (o.variadic || o.parseArg === collect) value = [String(raw)];
    else value = String(raw);
    if (o.argChoices && typeof value === 'string' && !o.argChoices.includes(value)) {
      throw new UserError(`config file '${config.file}': "${name}" must be one of ${o.argChoices.join(', ')}, got ${JSON.stringify(raw)}`, 65);
    }
    cmd.setOptionValueWithSource(attr, value, 'config');
  }
}
