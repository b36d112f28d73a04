import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import { UserError } from '../util/errors.ts';
import { formatDuration, parseDuration } from '../util/units.ts';

/**
 * Time a client has to send a whole request, headers and body (`serve` and `federate` --request-timeout).
 * Fastify leaves Node's requestTimeout at 0: a client sending a byte every few seconds held a connection
 * and its buffered body without end. Jetty's idle timeout is 30 s; the largest body taken (a 1 MiB query)
 * arrives in well under that on any link a server is worth serving.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * Fastify's options for the request timeout: Node answers a request not received in full within `ms` of
 * its connection or of its first byte (a keep-alive connection's next request) with 408 and closes it.
 * What runs after the request is in (a SPARQL query of many seconds) is not limited by it. Node checks
 * its connections every `connectionsCheckingInterval` (default 30 s, which would let a 30 s limit run to
 * 60 s): a tenth of the limit, at most a second. No socket inactivity timeout (Fastify's
 * connectionTimeout): a query under a raised time limit sends nothing for as long, and must not be cut.
 */
export function requestTimeoutOptions(ms = DEFAULT_REQUEST_TIMEOUT_MS): Pick<FastifyServerOptions, 'requestTimeout' | 'clientErrorHandler'> & { http: http.ServerOptions } {
  if (!(Number.isFinite(ms) && ms > 0)) throw new RangeError(`requestTimeoutMs must be a number > 0, got ${ms}`);
  return {
    requestTimeout: ms,
    // Never above the request timeout (Node refuses that), which bounds the headers too.
    http: { headersTimeout: ms, connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(ms / 10))) },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket: Socket) => clientError(err, socket, ms),
  };
}

/** The request timeout given on a command line (`--request-timeout 30s`). */
export function parseRequestTimeout(text: string | undefined, flag: string): number | undefined {
  if (text === undefined) return undefined;
  const ms = parseDuration(text, flag);
  if (!(ms > 0)) throw new UserError(`${flag} must be more than 0 (e.g. 30s)`);
  return ms;
}

/**
 * What a client gets for a request Node could not take (Fastify's default, in plain text as the servers'
 * other errors, and saying which limit): 408 past the request timeout, 431 for headers over Node's
 * limit, 400 otherwise; the connection is then closed.
 */
function clientError(err: NodeJS.ErrnoException, socket: Socket, ms: number): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, text] = err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
    ? [408, `the request was not received in full within the request timeout of ${formatDuration(ms)}: the connection is closed\n`]
    : err.code === 'HPE_HEADER_OVERFLOW' ? [431, 'the request headers are over the size limit\n'] : [400, 'the request is not valid HTTP\n'];
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`);
  }
  socket.destroy(err);
}
