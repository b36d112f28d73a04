/**
 * Unsolicited 100 Continue responses, dropped before undici reads them.
 *
 * RFC 9110 §15.2: a client must be able to parse one or more 1xx responses before the final one, even
 * one it did not ask for, and may ignore them. undici's HTTP/1.1 client passes other 1xx responses on
 * (103 Early Hints reaches the handler as an interim response) but destroys the connection on a 100 it
 * did not expect ("bad response"; nodejs/undici#197 leaves 100-continue unsupported), and the crawl
 * then took a server that sends one before every answer for a failing origin. undici has no hook
 * between the socket and its parser, so this sits on the socket: a request written marks the start of
 * a response, and a 100 response that opens it is cut out of the bytes undici reads. Requests are never
 * pipelined here (undici's default of one at a time), so a response starts only after a request is
 * written. Bytes past a 100's head go on as they came; anything else is passed on untouched at once.
 */
import type { Socket } from 'node:net';

const STATUS_LINE = 'HTTP/1.x 100 ';
/** A 100 response head longer than this is no 100 Continue: passed on for undici to refuse. */
const MAX_HEAD_BYTES = 16 * 1024;
const EMPTY: Buffer = Buffer.alloc(0);

/**
 * What the bytes at the start of a response are: the length of a whole 100 response head that opens
 * them, 0 when they open something else, -1 when more bytes are needed to tell.
 */
export function leadingContinue(bytes: Buffer): number {
  const n = Math.min(bytes.length, STATUS_LINE.length);
  for (let i = 0; i < n; i++) {
    const c = bytes[i]!;
    const want = STATUS_LINE.charCodeAt(i);
    const ok = i === 7 ? c === 0x30 || c === 0x31 : i === STATUS_LINE.length - 1 ? c === 0x20 || c === 0x0d : c === want;
    if (!ok) return 0;
  }
  if (n < STATUS_LINE.length) return -1;
  const end = bytes.indexOf('\r\n\r\n');
  if (end >= 0 && end < MAX_HEAD_BYTES) return end + 4;
  return bytes.length < MAX_HEAD_BYTES ? -1 : 0;
}

/** Drops each 100 response that opens a response on `socket` before its reader (undici) sees it. */
export function skipContinue(socket: Socket): void {
  let awaiting = false;
  let held: Buffer = EMPTY;
  const write = socket.write;
  socket.write = function (this: Socket, ...args: unknown[]) {
    awaiting = true;
    return (write as (...a: unknown[]) => boolean).apply(this, args);
  } as Socket['write'];
  const push = socket.push;
  socket.push = function (this: Socket, chunk: unknown, encoding?: BufferEncoding) {
    if (!awaiting || !Buffer.isBuffer(chunk)) {
      if (held.length) push.call(this, held);
      held = EMPTY;
      return push.call(this, chunk, encoding);
    }
    held = held.length ? Buffer.concat([held, chunk]) : chunk;
    for (;;) {
      const skip = leadingContinue(held);
      if (skip < 0) return true;
      if (skip === 0) {
        awaiting = false;
        const out = held;
        held = EMPTY;
        return push.call(this, out);
      }
      held = held.subarray(skip);
      if (!held.length) return true;
    }
  };
}
