/** `datamonitor sign` and `datamonitor verify-proof`: Data Integrity proofs on RDF files (src/trust/). */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { UserError } from '../../util/errors.ts';
import { EXIT } from '../../util/exit-codes.ts';
import { detachedProofText, formatOfFile, relativeIriProblem, relativeIris, signText, verifyText } from '../../trust/document.ts';
import { generateKeyFile, readSigningKey, readTrustList } from '../../trust/multikey.ts';
import { PROOF_REL, type TrustReport } from '../../trust/proof.ts';
import { summaryOf } from './index.ts';

interface SignFlags {
  key?: string;
  generateKey?: string;
  base?: string;
  out?: string;
  created?: string;
  detached?: string;
}

interface VerifyFlags {
  trust?: string;
  base?: string;
  json?: boolean;
}

function readInput(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read ${file}: ${(err as Error).message}`, EXIT.noInput);
  }
}

/**
 * The URL the proof is made for. A signature covers absolute IRIs, so a document with relative ones
 * (`<#me>`) verifies only under the URL it was signed for; and a Turtle-family proof hangs from the
 * document's URL (`<URL> sec:proof [ … ]`). Without --base that URL would be the file's own path, which
 * no reader can resolve and which publishes the signer's directories: refused, saying which of the two
 * applies. A JSON-LD proof hangs from the document's top object, so JSON-LD with absolute IRIs only
 * needs no URL (undefined).
 */
async function baseFor(file: string, text: string, base: string | undefined): Promise<string | undefined> {
  if (base) {
    if (!URL.canParse(base)) throw new UserError(`--base ${base} is not an absolute IRI`);
    return base;
  }
  const format = formatOfFile(file);
  const relative = await relativeIris(text, format, file);
  if (relative.length > 0) throw new UserError(relativeIriProblem(file, relative));
  if (format === 'JSON-LD') return undefined;
  const local = pathToFileURL(path.resolve(file)).href;
  throw new UserError(`${file}: give --base URL, the URL the document is published at: its proof names the document it signs (<URL> sec:proof [ … ]), and without --base that would be its local path ${local}, which no reader can resolve`);
}

export function register(program: Command): void {
  program
    .command('sign')
    .description(summaryOf('sign'))
    .argument('[document]', 'the RDF file to sign (.ttl, .nt, .nq, .trig, .jsonld)')
    .option('--key <file>', 'the key file (JSON Multikey with secretKeyMultibase, as --generate-key writes it)')
    .option('--generate-key <file>', 'write a new Ed25519 key file (mode 600) and print its did:key, for a trust list')
    .option('--base <iri>', 'the URL the document is published at (required but for JSON-LD without relative IRIs, whose proof hangs from its top object)')
    .option('--out <file>', 'write the signed document here instead of stdout')
    .option('--created <datetime>', 'the proof\'s creation time (xsd:dateTime); default now')
    .option('--detached <file>', 'write the proof as a document of its own (Turtle) and leave the document as it is; serve it with Link: <proof>; rel="https://w3id.org/security#proof"')
    .action(async (document: string | undefined, flags: SignFlags) => {
      if (flags.generateKey) {
        if (fs.existsSync(flags.generateKey)) throw new UserError(`${flags.generateKey} exists; datamonitor never overwrites a key (choose another file name)`);
        const key = generateKeyFile();
        fs.writeFileSync(flags.generateKey, JSON.stringify(key, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
        process.stdout.write(`did:key:${key.publicKeyMultibase}\n`);
        process.stderr.write(`wrote ${flags.generateKey} (keep it secret); the line above goes into a trust list (crawl --trust, verify-proof --trust)\n`);
        return;
      }
      if (!flags.key) throw new UserError('--key FILE is required (make one with: datamonitor sign --generate-key FILE)');
      if (!document) throw new UserError('name the document to sign: datamonitor sign --key FILE doc.ttl');
      if (flags.created !== undefined && !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(flags.created)) {
        throw new UserError(`--created ${flags.created} is not an xsd:dateTime like 2026-01-31T12:00:00Z`);
      }
      const key = readSigningKey(flags.key);
      const text = readInput(document);
      const base = await baseFor(document, text, flags.base);
      if (flags.detached) {
        if (base === undefined) throw new UserError(`a detached proof hangs from the document's URL (<URL> sec:proof [ … ]): give --base URL, the URL ${document} is published at`);
        fs.writeFileSync(flags.detached, await detachedProofText(text, formatOfFile(document), key, base, flags.created));
        process.stderr.write(`wrote the proof of ${document} by ${key.verificationMethod} into ${flags.detached}; publish it and link it from the document's response: Link: <URL of ${path.basename(flags.detached)}>; rel="${PROOF_REL}" (or state <${base}> <${PROOF_REL}> <its URL> in the document before signing)\n`);
        return;
      }
      const signed = await signText(text, formatOfFile(document), key, base, flags.created);
      if (flags.out) fs.writeFileSync(flags.out, signed);
      else process.stdout.write(signed);
      process.stderr.write(`signed ${document} by ${key.verificationMethod}${flags.out ? ` into ${flags.out}` : ''}\n`);
    });

  program
    .command('verify-proof')
    .description(summaryOf('verify-proof'))
    .argument('<documents...>', 'RDF files (.ttl, .nt, .nq, .trig, .jsonld)')
    .option('--trust <file>', 'trust list: one did:key or publicKeyMultibase a line; without it any key counts')
    .option('--base <iri>', 'the URL the documents were signed for (when they use relative IRIs)')
    .option('--json', 'print [{file, verdict, signedBy, reason, proofs}] as JSON')
    .action(async (documents: string[], flags: VerifyFlags) => {
      const trust = flags.trust ? readTrustList(flags.trust) : undefined;
      const reports: Array<TrustReport & { file: string }> = [];
      for (const file of documents) {
        const text = readInput(file);
        const base = flags.base ?? pathToFileURL(path.resolve(file)).href;
        reports.push({ file, ...(await verifyText(text, formatOfFile(file), base, trust)) });
      }
      if (reports.some((r) => r.verdict !== 'verified')) process.exitCode = EXIT.problems;
      if (flags.json) return void process.stdout.write(JSON.stringify(reports, null, 2) + '\n');
      for (const r of reports) process.stdout.write(`${r.file}: ${r.verdict}${r.signedBy ? ` by did:key:${r.signedBy}` : ''} (${r.reason})\n`);
      const ok = reports.filter((r) => r.verdict === 'verified').length;
      process.stderr.write(`${ok} of ${reports.length} verified${trust ? ` by a key of ${flags.trust}` : ''}\n`);
    });
}
