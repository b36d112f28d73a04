import { openVersionStore } from '../src/query/index.ts';
import { planQuery } from '../src/query/plan/planner.ts';
import { materialisePatterns, evaluateShape } from '../src/query/sparql.ts';
import { analyseQuery } from '../src/query/sparql-text.ts';
import { linkedDataWeb } from '../src/testkit/linked-data-web.ts';
const web = linkedDataWeb({ documents: 10000, hosts: 50 });
const a = openVersionStore('/tmp/dm-scale-query-10000', { readonly: true });
const T1 = Date.UTC(2026, 0, 1) + 30 * 86_400_000;
for (let r = 0; r < 3; r++) {
  const q = `PREFIX v: <http://vocab.lod.test/ns#> PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#> SELECT ?other ?label ?city WHERE { <${web.resource(r * 17)}> v:related ?other . ?other rdfs:label ?label ; v:address/v:city ?city }`;
  const shape = analyseQuery(q);
  let t = performance.now();
  const plan = planQuery({ archive: a, text: shape.text, snapshotLoaded: false });
  const t1 = performance.now() - t; t = performance.now();
  if (plan.kind !== 'patterns') { console.log(plan); continue; }
  const rows = plan.patterns.map((p) => a.matchAt(T1 + r, p).length);
  const t2 = performance.now() - t; t = performance.now();
  const snap = materialisePatterns(a, T1 + r, plan);
  const t3 = performance.now() - t; t = performance.now();
  const out = evaluateShape(snap.store, shape, 'application/sparql-results+json') as string;
  const t4 = performance.now() - t;
  console.log({ plan: plan.patterns, estimate: plan.estimate, rows, t1, t2, t3, t4, quads: snap.quads, out: out.length });
}
