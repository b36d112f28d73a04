import fs from 'node:fs';
import path from 'node:path';

/** Every WARC file under the data directory (workers' included), relative to it; `.open` ones apart. */
export function listWarcFiles(dataDir: string): { closed: string[]; open: string[] } {
  const closed: string[] = [];
  const open: string[] = [];
  const walk = (rel: string) => {
    for (const d of fs.readdirSync(path.join(dataDir, rel), { withFileTypes: true })) {
      const child = path.join(rel, d.name);
      if (d.isDirectory()) {
        if (!d.name.startsWith('.')) walk(child);
      } else if (d.name.endsWith('.warc.gz')) closed.push(child);
      else if (d.name.endsWith('.warc.gz.open')) open.push(child);
    }
  };
  walk('');
  return { closed: closed.sort(), open: open.sort() };
}
