/**
 * A write function for a stream that keeps its backpressure: it returns a promise while the stream holds
 * more than its high-water mark, settled when the stream drains (or rejected when it fails, e.g. EPIPE when
 * the reader of a pipe went away). A writer that waits on it holds a chunk, not the whole output: an
 * export to a slow disk or pipe used to queue every chunk in the stream's buffer.
 */
export function streamSink(out: NodeJS.WritableStream): (chunk: string | Uint8Array) => void | Promise<void> {
  return (chunk) => {
    if (out.write(chunk)) return undefined;
    return new Promise<void>((resolve, reject) => {
      const done = (err?: Error) => {
        out.off('drain', onDrain);
        out.off('error', done);
        if (err) reject(err);
        else resolve();
      };
      const onDrain = () => done();
      out.once('drain', onDrain);
      out.once('error', done);
    });
  };
}
