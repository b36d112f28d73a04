/**
 * `datamonitor lab site`: a large real site from Debian documentation packages (for the ordering
 * lab, as Cho et al.'s 179,000 Stanford pages) and the breadth-first link stream of a virtual
 * crawl of it (a real multi-host trace for the caching lab, as Broder et al.'s).
 */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { Command } from 'commander';
import { TraceCounter, type describeTrace } from '../../lab/cache/index.ts';
import { bfsLinkStream, buildDebianSite, loadDebianSite, TRACE_FILE } from '../../lab/ordering/debian-site.ts';
import { labCommand } from './lab.ts';
import { summaryOf } from './index.ts';

interface Options {
  debian: string[];
  out: string;
  traceOut?: string;
  json?: boolean;
}

/** Writes `urls` gzip, one a line, and counts them as it goes. */
async function writeTrace(urls: Iterable<string>, file: string): Promise<ReturnType<typeof describeTrace>> {
  const counter = new TraceCounter();
  let batch: string[] = [];
  function* lines(): Generator<string> {
    for (const u of urls) {
      counter.add(u);
      batch.push(u);
      if (batch.length === 4096) {
        yield `${batch.join('\n')}\n`;
        batch = [];
      }
    }
    if (batch.length) yield `${batch.join('\n')}\n`;
  }
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  await pipeline(Readable.from(lines()), zlib.createGzip(), fs.createWriteStream(file));
  return counter.result();
}

export function register(program: Command): void {
  labCommand(program)
    .command('site')
    .description(summaryOf('lab site'))
    .requiredOption('--debian <deb...>', 'Debian documentation packages (.deb) to unpack, each served as http://PACKAGE.docs.local/')
    .requiredOption('--out <dir>', 'a new directory for the site (give it to `lab report --large-site`)')
    .option('--trace-out <file>', `where to write the breadth-first link stream, gzip, one URL a line (for \`lab cache --trace\`); default DIR/${TRACE_FILE}`)
    .option('--json', 'print the counts as JSON on stdout')
    .action(async (o: Options) => {
      const say = (t: string) => process.stderr.isTTY && !o.json && process.stderr.write(`${t}\n`);
      const manifest = buildDebianSite(o.debian, o.out, say);
      say('reading the pages');
      const site = await loadDebianSite(o.out, (p) => ({ url: p.url, links: p.links.map((l) => ({ url: l.url, anchorText: '', context: '' })) }));
      const traceFile = o.traceOut ?? path.join(o.out, TRACE_FILE);
      say('crawling it breadth-first');
      const trace = await writeTrace(bfsLinkStream(site.graph), traceFile);
      const counts = {
        site: o.out,
        packages: manifest.packages.map((p) => ({ name: p.name, version: p.version, host: new URL(p.base).host, roots: p.roots.length })),
        htmlFiles: site.files,
        pages: site.graph.pages.length,
        redirectPages: site.redirects,
        unreachable: site.unreachable,
        trace: { file: traceFile, ...trace },
      };
      if (o.json) {
        process.stdout.write(JSON.stringify(counts, null, 2) + '\n');
        return;
      }
      process.stdout.write(
        [
          `${o.out}: ${counts.packages.map((p) => `${p.name} ${p.version} (${p.roots} HTML root${p.roots === 1 ? '' : 's'})`).join(', ')}, and a generated portal page linking each root.`,
          `${counts.pages.toLocaleString('en')} pages reachable from the portal (${counts.redirectPages.toLocaleString('en')} of them redirects to another page); ${counts.unreachable.toLocaleString('en')} of the ${counts.htmlFiles.toLocaleString('en')} HTML files are linked from none of them and left out.`,
          `Breadth-first link stream: ${trace.requests.toLocaleString('en')} requests, ${trace.distinct.toLocaleString('en')} distinct URLs on ${trace.hosts.toLocaleString('en')} hosts, written to ${traceFile}.`,
        ].join('\n') + '\n',
      );
    });
}
