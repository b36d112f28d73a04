/**
 * Each test file's temporary directories (test/helpers.ts tempDir) removed when the file ends. Forks run file
 * after file (vitest.config.ts) and vitest ends them without an 'exit' event, so the exit handler alone left a
 * run's directories behind: 249 archives in the system's temporary directory after one run of a fifth of the suite.
 */
import { afterAll } from 'vitest';
import { removeTempDirs } from '../helpers.ts';

afterAll(() => removeTempDirs());
