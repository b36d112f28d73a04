/**
 * The crawl archive as a repository for the ordering lab (`lab ordering --data DIR`).
 * Not written yet: the archive's owner will read its pages and links into a RepositoryGraph here.
 */
import { UserError } from '../../util/errors.ts';
import type { RepositoryGraph } from './graph.ts';

export async function loadArchiveGraph(dataDir: string): Promise<RepositoryGraph> {
  throw new UserError(`reading the crawl archive (${dataDir}) is not yet available: use --site DIR`);
}
