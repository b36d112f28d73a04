/** `datamonitor lab report`: every seed experiment, one HTML page of claims, figures and verdicts (issue #15). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { ProgressLine } from '../progress.ts';
import { UserError } from '../../util/errors.ts';
import { labCommand } from './lab.ts';
import { defaultProviders, renderReport, runLabReport } from '../../lab/report/index.ts';
import { summaryOf } from './index.ts';
import { readManifest } from '../../lab/ordering/debian-site.ts';

interface Options {
  out: string;
  quick?: boolean;
  json?: boolean;
  only?: string;
  shared?: string;
  secondSite?: string;
  largeSite?: string;
}

export function register(program: Command): void {
  labCommand(program)
    .command('report')
    .description(summaryOf('lab report'))
    .option('--out <file.html>', 'where to write the page', 'report.html')
    .option('--quick', 'small built-in data, seconds instead of minutes: a smoke test of the code, no verdicts (CI; also what runs when ../shared/data is absent)')
    .option('--json', 'print the verdict table as JSON on stdout')
    .option('--only <list>', `only these experiments: ${defaultProviders().map((p) => p.name).join(',')}`)
    .option('--shared <dir>', 'the shared data folder (default ../shared/data next to the repository)')
    .option('--second-site <dir>', "a second site (directory of HTML files) for the ordering experiments; default: the Rust standard library's documentation when rustc has it")
    .option('--large-site <dir>', 'a site of at least 100,000 pages built by `datamonitor lab site --debian PKG.deb… --out DIR`: the ordering experiments run on it too, the caching ones on its breadth-first link stream (DIR/bfs.urltrace.gz)')
    .action(async (o: Options) => {
      const known = defaultProviders().map((p) => p.name);
      const only = o.only?.split(',').map((s) => s.trim()).filter(Boolean);
      for (const n of only ?? []) if (!known.includes(n)) throw new UserError(`--only: unknown experiment "${n}" (known: ${known.join(', ')})`);
      if (o.shared && !fs.existsSync(o.shared)) throw new UserError(`--shared ${o.shared} does not exist: give the folder holding histories/, sites/, traces/`);
      if (o.secondSite && !fs.existsSync(path.join(o.secondSite, 'index.html'))) throw new UserError(`--second-site ${o.secondSite} has no index.html: give the root folder of a website's HTML files`);
      if (o.largeSite) readManifest(o.largeSite);
      const progress = new ProgressLine();
      const report = await runLabReport({ quick: o.quick, only, sharedData: o.shared, secondSite: o.secondSite, largeSite: o.largeSite, onProgress: (t) => progress.update(t) });
      progress.done();
      fs.mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
      fs.writeFileSync(o.out, renderReport(report));
      if (o.json) {
        const failed = report.sections.filter((s) => s.error).map((s) => ({ experiment: s.name, error: s.error }));
        process.stdout.write(JSON.stringify({ generated: report.generated, quick: report.quick, data: report.quick ? null : report.sharedData ?? null, out: o.out, claims: report.claims.map(({ figure: _f, ...c }) => c), failed }, null, 2) + '\n');
        return;
      }
      const count = (v: string) => report.claims.filter((c) => c.verdict === v).length;
      for (const c of report.claims) process.stdout.write(`${c.verdict.padEnd(17)} ${c.id}: ${c.measured}${c.smokeOutcome ? ` (the rule on built-in data: ${c.smokeOutcome})` : ''}\n`);
      for (const s of report.sections) if (s.error) process.stdout.write(`${s.name}: failed: ${s.error}\n`);
      const tally = count('smoke test') === report.claims.length
        ? `${report.claims.length} smoke tests on the built-in data, no verdict on any claim (give ../shared/data, without --quick, for verdicts)`
        : `${report.claims.length} claims: ${count('confirmed')} confirmed, ${count('refuted')} refuted, ${count('mixed')} mixed, ${count('not testable here')} not testable here`;
      process.stdout.write(`\n${tally} (${report.seconds.toFixed(0)} s). Page written to ${o.out}.\n`);
    });
}
