/**
 * The `/cdx` route: pywb's query parameters checked and answered, a page at a time in index order
 * (src/server/cdx-query.ts), or whole for the orders that need every match first.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { formatLinkFormat } from '../util/link-format.ts';
import type { ServerContext } from './context.ts';
import { httpDate, parseTimestamp } from './mementos.ts';
import { cdxAll, cdxPageStream } from './cdx-query.ts';
import {
  DEFAULT_LIMIT, MAX_LIMIT, formatLines, parseFieldList, parseFilter, sortLines, type CdxLine, type CdxOutput, type MatchType,
} from './cdx.ts';

const MATCH_TYPES: MatchType[] = ['exact', 'prefix', 'host', 'domain'];
const OUTPUTS: CdxOutput[] = ['cdxj', 'json', 'link', 'text'];
const SORTS = ['reverse', 'closest'] as const;

/** A query parameter given once or more (fastify's querystring parser makes repeated ones an array). */
function repeated(v: string | string[] | undefined): string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

export function registerCdxRoute(app: FastifyInstance, ctx: ServerContext): void {
  app.get('/cdx', async (req, reply) => {
    const q = req.query as Record<string, string | string[] | undefined>;
    // Parameters other than filter are taken once; given twice, the last one counts.
    const p = Object.fromEntries(Object.entries(q).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1) : v])) as Record<string, string | undefined>;
    const bad = (msg: string) => reply.code(400).type('text/plain').send(msg + '\n');
    if (!p.url) return bad('give url=, e.g. /cdx?url=http://example.org/doc&matchType=exact&output=cdxj');
    const matchType = (p.matchType ?? p.matchtype) as MatchType | undefined;
    if (matchType && !MATCH_TYPES.includes(matchType)) return bad(`matchType '${matchType}' is not one of ${MATCH_TYPES.join(', ')}`);
    const output = (p.output ?? 'cdxj') as CdxOutput;
    if (!OUTPUTS.includes(output)) return bad(`output '${output}' is not one of ${OUTPUTS.join(', ')}`);
    for (const [name, v] of [['from', p.from], ['to', p.to]] as const) if (v !== undefined && !/^\d{1,14}$/.test(v)) return bad(`${name} '${v}' is not a timestamp prefix (1 to 14 digits, yyyyMMddHHmmss)`);
    const limit = p.limit === undefined || p.limit === '' ? DEFAULT_LIMIT : Number(p.limit);
    if (!Number.isInteger(limit)) return bad(`limit '${p.limit}' is not a whole number (a negative one gives the last captures)`);
    // closest=<ts> alone sorts by it, as pywb does (its query notes that sort=closest is not required).
    const sort = p.sort || (p.closest ? 'closest' : undefined);
    if (sort !== undefined && !(SORTS as readonly string[]).includes(sort)) return bad(`sort '${sort}' is not one of ${SORTS.join(', ')} (leave it out for index order)`);
    let closest: number | undefined;
    if (sort === 'closest') {
      closest = p.closest !== undefined && /^\d{4,14}$/.test(p.closest) ? parseTimestamp(p.closest) : undefined;
      if (closest === undefined) return bad(`sort=closest needs closest=<timestamp> (4 to 14 digits, yyyyMMddHHmmss), not '${p.closest ?? ''}'`);
    }
    const fl = p.fl ? parseFieldList(p.fl) : undefined;
    const filters = repeated(q.filter).filter((f) => f !== '').map(parseFilter);
    const keep = (l: CdxLine) => filters.every((f) => f(l));
    const query = { url: p.url, matchType, from: p.from, to: p.to };
    const mediaType = output === 'json' ? 'application/x-ndjson' : output === 'link' ? 'application/link-format' : output === 'text' ? 'text/plain' : 'text/x-cdxj';
    const base = ctx.publicUrl();
    const linkText = (lines: CdxLine[]) => formatLinkFormat(lines.map((l) => ({ uri: `${base}/memento/${l.timestamp}/${l.url}`, params: { rel: 'memento', datetime: httpDate(parseTimestamp(l.timestamp)!) } }))).slice(0, -1);
    if (sort || limit < 0) {
      // These orders need every match first; they give no resume key (the answer is one page).
      if (p.resumeKey) return bad(`resumeKey cannot be combined with ${sort ? `sort=${sort}` : 'a negative limit'}: page in index order, or narrow the query`);
      let lines = await cdxAll(ctx.store, query, keep, MAX_LIMIT);
      if (limit < 0) lines = lines.slice(Math.max(0, lines.length + limit));
      lines = sortLines(lines, sort as 'reverse' | 'closest' | undefined, closest);
      if (limit >= 0) lines = lines.slice(0, limit);
      const body = output === 'link' ? (lines.length ? `${linkText(lines)}\n` : '') : formatLines(lines, output, fl);
      return reply.type(mediaType).send(body);
    }
    // A page at a time, limited in SQL, and sent as it is read, a chunk of lines at a time: the server holds a
    // chunk, not the page (src/server/cdx-query.ts). The rest of a longer answer is one resumeKey away.
    const { resumeKey, chunks } = await cdxPageStream(ctx.store, { ...query, limit: Math.min(limit, MAX_LIMIT), resumeKey: p.resumeKey || undefined }, keep);
    if (resumeKey) reply.header('x-resume-key', resumeKey);
    const showKey = resumeKey && p.showResumeKey === 'true';
    async function* body(): AsyncGenerator<string> {
      let first = true;
      for await (const lines of chunks) {
        // Link format separates links with ",\n": between chunks too.
        yield output === 'link' ? `${first ? '' : ',\n'}${linkText(lines)}` : formatLines(lines, output, fl);
        first = false;
      }
      if (output === 'link' && !first) yield '\n';
      // The resume key after an empty line, as the Wayback CDX server prints it with showResumeKey=true.
      if (showKey && output === 'json') yield `\n${JSON.stringify({ resumeKey })}\n`;
      else if (showKey && output !== 'link') yield `\n${resumeKey}\n`;
    }
    return reply.type(mediaType).send(Readable.from(body()));
  });
}
