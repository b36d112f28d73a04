/** Content-decoding (gzip, deflate, br) with a cap on inflated bytes, so a bomb is cut, never buffered. */
import zlib from 'node:zlib';

export interface Decoded {
  body: Buffer;
  /** Output reached the cap and was cut. */
  truncated: boolean;
  /** Set when the bytes are not valid for the encoding (body holds what decoded before that). */
  error?: string;
}

type Codec = 'gzip' | 'deflate' | 'deflate-raw' | 'br';

/** Bodies this small decode synchronously: cheaper than a stream and bounded by maxOutputLength. */
const SYNC_LIMIT = 16 * 1024;

function codecFor(encoding: string, raw: Buffer): Codec | undefined {
  switch (encoding) {
    case 'gzip':
    case 'x-gzip':
      return 'gzip';
    case 'br':
      return 'br';
    case 'deflate':
      // Some servers send raw deflate without the zlib header (RFC 1950 header check: CMF/FLG multiple of 31)
      return raw.length >= 2 && (raw[0] & 0x0f) === 8 && ((raw[0] << 8) | raw[1]) % 31 === 0 ? 'deflate' : 'deflate-raw';
    default:
      return undefined;
  }
}

/**
 * zlib's default finish (no finishFlush option below): a compressed stream that stops before its end is an
 * error ("unexpected end of file"), which is how a body cut in transfer shows (a Content-Length the server did
 * not keep to is not always seen: a connection closed early ends a body without one). The stream path still
 * yields what decoded before that, so a body cut on purpose (--max-body) keeps it; its error is then dropped.
 */
const ENDS_EARLY = /unexpected end of file/i;

function syncDecode(codec: Codec, raw: Buffer, max: number): Buffer {
  const opts = { maxOutputLength: max };
  switch (codec) {
    case 'gzip':
      return zlib.gunzipSync(raw, opts);
    case 'deflate':
      return zlib.inflateSync(raw, opts);
    case 'deflate-raw':
      return zlib.inflateRawSync(raw, opts);
    case 'br':
      return zlib.brotliDecompressSync(raw, opts);
  }
}

function createStream(codec: Codec): zlib.Gunzip | zlib.Inflate | zlib.InflateRaw | zlib.BrotliDecompress {
  switch (codec) {
    case 'gzip':
      return zlib.createGunzip();
    case 'deflate':
      return zlib.createInflate();
    case 'deflate-raw':
      return zlib.createInflateRaw();
    case 'br':
      return zlib.createBrotliDecompress();
  }
}

function streamDecode(codec: Codec, raw: Buffer, max: number): Promise<Decoded> {
  return new Promise((resolve) => {
    const stream = createStream(codec);
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: Omit<Decoded, 'body'>) => {
      if (done) return;
      done = true;
      resolve({ body: Buffer.concat(chunks, size), ...result });
    };
    stream.on('data', (chunk: Buffer) => {
      if (done) return;
      const room = max - size;
      if (chunk.length > room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        finish({ truncated: true });
        stream.destroy();
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    });
    stream.on('end', () => finish({ truncated: false }));
    stream.on('error', (err) => finish({ truncated: false, error: err.message }));
    stream.end(raw);
  });
}

/**
 * Decodes `raw` per Content-Encoding (a comma list is undone last-applied first); at most `maxBytes` of
 * output. `cut`: the bytes were cut short on purpose (at the size limit), so a stream that ends early is expected.
 */
export async function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number, opts: { cut?: boolean } = {}): Promise<Decoded> {
  if (!contentEncoding) return { body: raw, truncated: false };
  const codings = contentEncoding
    .toLowerCase()
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '' && c !== 'identity');
  let body = raw;
  let truncated = false;
  for (let i = codings.length - 1; i >= 0; i--) {
    const codec = codecFor(codings[i], body);
    if (!codec) return { body, truncated, error: `unsupported content-encoding "${codings[i]}"` };
    const step = await decodeOne(codec, body, maxBytes);
    const endsEarly = step.error !== undefined && ENDS_EARLY.test(step.error);
    if (step.error && !(endsEarly && opts.cut)) {
      const error = endsEarly
        ? `${codings[i]}: the compressed body stops before its end (${step.error}): cut short in transfer, ${step.body.length} bytes decoded`
        : `${codings[i]}: ${step.error}`;
      return { body: step.body, truncated, error };
    }
    body = step.body;
    truncated ||= step.truncated;
  }
  return { body, truncated };
}

async function decodeOne(codec: Codec, raw: Buffer, maxBytes: number): Promise<Decoded> {
  if (raw.length <= SYNC_LIMIT) {
    try {
      return { body: syncDecode(codec, raw, maxBytes), truncated: false };
    } catch (err) {
      // Over the cap or broken: the stream path yields the prefix and the precise reason.
      if (!(err instanceof Error)) throw err;
    }
  }
  return streamDecode(codec, raw, maxBytes);
}
