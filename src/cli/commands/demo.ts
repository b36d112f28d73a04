import path from 'node:path';
import fs from 'node:fs';
import type { Command } from 'commander';
import { startWebOfData } from '../../testkit/web-of-data.ts';
import { runCrawlCommand } from './crawl.ts';
import { withStore } from '../../store/index.ts';
import { exportArchive } from '../../archive/export.ts';
import { summaryOf } from './index.ts';

export function register(program: Command): void {
  program
    .command('demo')
    .description(summaryOf('demo'))
    .option('--data <dir>', 'where to archive it', 'demo-archive')
    .option('--json', 'print the summary as JSON')
    .action(async (flags) => {
      const dataDir = path.resolve(flags.data);
      fs.rmSync(dataDir, { recursive: true, force: true });
      const web = await startWebOfData();
      try {
        if (!flags.json) process.stdout.write(`Serving a small Web of Data at ${web.url} (robots.txt, 303 redirects, six RDF serialisations, RDFa, a broken document)\n`);
        const summary = await runCrawlCommand(
          // Only the bundled site: the vocabularies it uses (FOAF, Dublin Core) live on the real Web.
          { seeds: [web.seed], dataDir, depth: 4, delayMs: 20, allowPrivate: true, concurrency: 4, domains: ['127.0.0.1'] },
          Boolean(flags.json),
        );
        if (!flags.json) {
          let n3 = '';
          await withStore(dataDir, undefined, (store) => exportArchive(store, dataDir, 'nquads', (s) => (n3 += s)));
          const sample = n3.split('\n').filter((l) => l.includes('foaf/0.1/knows')).slice(0, 3);
          process.stdout.write(`\nA few of the archived quads (each document in its own graph):\n${sample.map((l) => '  ' + l).join('\n')}\n`);
          process.stdout.write(`\nNext: npx datamonitor export --data ${path.relative(process.cwd(), dataDir) || '.'} --format turtle\n`);
        }
        if (summary.documents === 0) process.exitCode = 1;
      } finally {
        await web.close();
      }
    });
}
