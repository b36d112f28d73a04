/**
 * Seed 003's Erdős-number benchmark (`datamonitor lab erdos`) at several sizes of the generated scholarly
 * Web: documents fetched, time and correctness of the query-driven crawl against the breadth-first crawl
 * (the peer, measured in the same run on the same Web), and the re-crawl after the Web grew by 2 %.
 * Run: node bin/run-ts.mjs bench/erdos.bench.ts [--sizes 200,1000,5000] [--quick] [--out bench/ERDOS.md] [--svg bench/erdos.svg]
 * (--quick: 200 papers only). Writes the markdown to --out (default: stdout) and the largest size's plot to --svg.
 */
import fs from 'node:fs';
import os from 'node:os';
import { erdosLabPlot, runErdosLab, type ErdosLabResult } from '../src/lab/erdos/index.ts';
import { option, QUICK } from './args.ts';

const sizes = (option('--sizes') ?? (QUICK ? '200' : '200,1000,5000')).split(',').map(Number);
const runs: Array<{ r: ErdosLabResult; load: [number, number] }> = [];
for (const papers of sizes) {
  const before = os.loadavg()[0]!;
  const r = await runErdosLab({ papers, onProgress: (t) => process.stderr.write(`\r${papers} papers: ${t}`.padEnd(100).slice(0, 100)), onPhase: (t) => process.stderr.write(`\n${papers} papers: ${t}\n`) });
  runs.push({ r, load: [before, os.loadavg()[0]!] });
  process.stderr.write(`\n${papers} papers done in ${r.seconds.toFixed(0)} s\n`);
}
const svg = option('--svg');
if (svg) fs.writeFileSync(svg, erdosLabPlot(runs.at(-1)!.r));

const s = (x: number) => x.toFixed(1);
const lines = [
  '# The Erdős-number benchmark (seed 003): query-driven against breadth-first crawling',
  '',
  `_Run ${new Date().toISOString().slice(0, 16)}Z on ${os.cpus().length} cores shared with other engineers' builds and tests (1-minute load average at the start and end of each size in the table): absolute times are inflated and noisy; compare the two methods within a row._`,
  '',
  ...(svg ? [`![correct numbers against documents fetched, ${runs.at(-1)!.r.web.papers} papers](${svg.replace(/^bench\//, '')})`, ''] : []),
  `Command: \`node bin/run-ts.mjs bench/erdos.bench.ts --sizes ${sizes.join(',')}${option('--out') ? ` --out ${option('--out')}` : ''}${svg ? ` --svg ${svg}` : ''}\` (each size is \`datamonitor lab erdos --papers N\`: 2 research fields, 8 hosts, seed 1, 4 requests in flight per host, no delay; the server and proxy on 127.0.0.1).`,
  '',
  'Documents are HTTP responses archived (303s included). Time = crawl + bringing the version index up to date + the SPARQL',
  'queries that number every researcher (one per Erdős level, through runQuery). Correct / wrong / missing: against the generator\'s ground truth',
  '(every researcher with a co-authorship path to Erdős).',
  '',
  '| papers | researchers | with a number (max) | method | documents | crawl s | index s | query s (queries) | total s | correct | wrong | missing | docs vs BFS | load |',
  '| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
];
for (const { r, load } of runs) {
  const bfs = r.methods.find((m) => m.method === 'bfs')!;
  for (const m of r.methods) {
    lines.push(`| ${r.web.papers.toLocaleString('en')} | ${r.web.researchers.toLocaleString('en')} | ${r.web.withNumber.toLocaleString('en')} (${r.web.maxNumber}) | ${m.method === 'follow' ? 'query-driven' : 'breadth-first'} | ${m.documents.toLocaleString('en')} | ${s(m.crawlSeconds)} | ${s(m.indexSeconds)} | ${s(m.querySeconds)} (${m.queries}) | ${s(m.crawlSeconds + m.indexSeconds + m.querySeconds)} | ${m.score.correct} | ${m.score.wrong} | ${m.score.missing} | ${(m.documents / bfs.documents).toFixed(2)}× | ${load.map((l) => l.toFixed(0)).join('→')} |`);
  }
}
lines.push('', '## After the Web grew (the query-driven archive re-crawled)', '',
  'The first crawl\'s documents are monitored (strategy poisson, due at once); one cycle (`datamonitor run`) re-fetches them and tells changed graphs from unchanged ones; a query-driven crawl over the archive (`--follow-archive`) fetches what the changed pages now point to. Numbers again by SPARQL, now and `--at` the end of the first crawl.',
  '',
  '| papers | new papers (researchers) | numbers changed (truth) | cycle: downloaded, changed, s | follow-archive: documents, s | now: correct / wrong / missing | at first crawl: correct / wrong / missing, same as before |',
  '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
);
for (const { r } of runs) {
  const g = r.growth!;
  lines.push(`| ${r.web.papers.toLocaleString('en')} | ${g.papersAdded} (${g.researchersAdded}) | ${g.changed.length} (${g.truthChanged}) | ${g.cycle.downloads}, ${g.cycle.changed}, ${s(g.cycle.seconds)} | ${g.followUp.documents}, ${s(g.followUp.seconds)} | ${g.after.correct} / ${g.after.wrong} / ${g.after.missing} | ${g.atFirstCrawl.correct} / ${g.atFirstCrawl.wrong} / ${g.atFirstCrawl.missing}, ${g.atFirstCrawlSameAsBefore ? 'yes' : 'NO'} |`);
}
const out = option('--out');
if (out) fs.writeFileSync(out, lines.join('\n') + '\n');
else process.stdout.write(lines.join('\n') + '\n');
