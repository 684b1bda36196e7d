'use strict';
// minigraf through Node beside SQLite through better-sqlite3 (issue 14,
// bench/compare's shapes): the same envelope fixture, minigraf's file and
// SQLite's EAV table eav(e, a, v, tx, tx_end, vf, vt) with indexes (e, a, v)
// and (a, v, e) that bench_compare builds, the same shapes as Datalog and as
// SQL (shapes.c; a recursive CTE for the ancestors). Both sides prepare
// their statement once and read every row as arrays (minigraf: prepare().all(),
// better-sqlite3: prepare().raw().all()); minigraf also runs its query text
// (db.query(text).all()), the path bench_bindings_c times in C, and is
// streamed (cursor.nextBatch(4096) without keeping the rows: the per-row
// cost without the garbage collector's work of keeping 10^5 rows alive).
// The two engines run alternately, shape by shape, in one process.
//
//   node bench_node_compare.js MINIGRAF_FILE SQLITE_FILE N [SHAPE ...]
//
// MINIGRAF_FILE must be writable (the ancestors shape registers its rules);
// bench_node.sh passes a copy. Prints a table and one JSON line per shape.
// The package is require('minigraf'), or the directory in
// MINIGRAF_NODE_PACKAGE; better-sqlite3 is required from BETTER_SQLITE3
// (a path) or by name.

const minigraf = require(process.env.MINIGRAF_NODE_PACKAGE || 'minigraf');
const Sqlite = require(process.env.BETTER_SQLITE3 || 'better-sqlite3');

const WARMUP_RUNS = 3;
const BUDGET_S = 1.0;
const MIN_RUNS = 5;
const MAX_RUNS = 5000;
const MAXTX = '9223372036854775807';

const nowS = () => Number(process.hrtime.bigint()) / 1e9;

/** shapes.c's SQL helpers: what a query sees by default (current, valid now). */
const cur = (t, now) => `${t}.tx_end = ${MAXTX} AND ${t}.vf <= ${now} AND ${t}.vt > ${now}`;
const boss = (seed, now) =>
  `WITH RECURSIVE boss(x, b) AS (SELECT e, v FROM eav m WHERE ${seed} AND ${cur('m', now)}` +
  ` UNION SELECT boss.x, m.v FROM boss JOIN eav m ON m.e = boss.b AND m.a = 'manager' AND ${cur('m', now)})`;

const BOSS_RULES = [
  '(rule [(boss ?x ?b) [?x :manager ?b]])',
  '(rule [(boss ?x ?b) [?x :manager ?m] (boss ?m ?b)])',
];

/** The shapes of shapes.c that the engine answers with an index, plus the scan. */
function shapes(n, now) {
  const entities = Math.floor(n / 6);
  const m = Math.floor(entities / 2);
  const leaf = entities - 1;
  return [
    [
      'point_entity',
      `[:find ?a :where [:p${m} :age ?a]]`,
      `SELECT v FROM eav f WHERE f.e = ${m} AND f.a = 'age' AND ${cur('f', now)}`,
    ],
    [
      'attribute_value',
      `[:find ?e :where [?e :name "p${m}"]]`,
      `SELECT e FROM eav f WHERE f.a = 'name' AND f.v = 'p${m}' AND ${cur('f', now)}`,
    ],
    [
      'join_2',
      `[:find ?n :where [:p${m} :follows ?f] [?f :name ?n]]`,
      `SELECT n.v FROM eav f JOIN eav n ON n.e = f.v AND n.a = 'name' AND ${cur('n', now)}` +
        ` WHERE f.e = ${m} AND f.a = 'follows' AND ${cur('f', now)}`,
    ],
    [
      'join_3_selective',
      `[:find ?s ?n :where [:p${m} :manager ?b] [?s :manager ?b] [?s :name ?n]]`,
      `SELECT s.e, n.v FROM eav b JOIN eav s ON s.a = 'manager' AND s.v = b.v AND ${cur('s', now)}` +
        ` JOIN eav n ON n.e = s.e AND n.a = 'name' AND ${cur('n', now)}` +
        ` WHERE b.e = ${m} AND b.a = 'manager' AND ${cur('b', now)}`,
    ],
    [
      'recursive_ancestors',
      `[:find ?b :where (boss :p${leaf} ?b)]`,
      `${boss(`m.e = ${leaf} AND m.a = 'manager'`, now)} SELECT b FROM boss`,
    ],
    [
      'not_probe',
      '[:find ?e :where [?e :group 7] (not [?e :age ?a] [(< ?a 10)])]',
      `SELECT g.e FROM eav g WHERE g.a = 'group' AND g.v = 7 AND ${cur('g', now)}` +
        ` AND NOT EXISTS (SELECT 1 FROM eav x WHERE x.e = g.e AND x.a = 'age' AND x.v < 10 AND ${cur('x', now)})`,
    ],
    [
      'attribute_scan',
      '[:find ?e ?a :where [?e :age ?a]]',
      `SELECT e, v FROM eav f WHERE f.a = 'age' AND ${cur('f', now)}`,
    ],
  ];
}

/** Reads every row of `cursor` in batches, keeping none; the count. */
function stream(cursor) {
  let n = 0;
  for (let batch; (batch = cursor.nextBatch(4096)) !== null;) n += batch.length;
  cursor.close();
  return n;
}

/** p50 and row count of `run` (returns the rows or their count), warmed
 * up, within the budget. */
function time(run) {
  const count = (r) => (typeof r === 'number' ? r : r.length);
  const rows = count(run());
  for (let i = 1; i < WARMUP_RUNS; i++) run();
  const times = [];
  let spent = 0;
  while (times.length < MAX_RUNS && (times.length < MIN_RUNS || spent < BUDGET_S)) {
    const t0 = nowS();
    const got = count(run());
    const t = nowS() - t0;
    if (got !== rows) throw new Error('unstable row count');
    times.push(t);
    spent += t;
  }
  times.sort((a, b) => a - b);
  return { rows, runs: times.length, p50_us: Math.round(times[times.length >> 1] * 1e8) / 100 };
}

function main(argv) {
  if (argv.length < 3) {
    console.error('usage: bench_node_compare.js MINIGRAF_FILE SQLITE_FILE N [SHAPE ...]');
    process.exit(2);
  }
  const [mgPath, litePath, nText, ...only] = argv;
  const n = Number(nText);
  const db = minigraf.open(mgPath);
  for (const rule of BOSS_RULES) db.execute(rule);
  const lite = new Sqlite(litePath, { readonly: true });
  const now = Date.now();
  console.log(
    `${n} facts; p50 per query in µs; ratio = better-sqlite3 p50 / minigraf prepared p50`,
  );
  console.log(
    `${'shape'.padEnd(20)} ${'rows'.padStart(7)} ${'mg query'.padStart(10)} ${'mg stream'.padStart(10)}` +
      ` ${'mg prepared'.padStart(12)} ${'sqlite'.padStart(10)} ${'ratio'.padStart(7)}`,
  );
  for (const [name, datalog, sql] of shapes(n, now)) {
    if (only.length > 0 && !only.includes(name)) continue;
    const text = `(query ${datalog})`;
    const pq = db.prepare(text);
    const stmt = lite.prepare(sql).raw(true);
    const viaText = time(() => db.query(text).all());
    const streamed = time(() => stream(db.query(text)));
    const viaPrepared = time(() => pq.all());
    const viaSqlite = time(() => stmt.all());
    if (viaSqlite.rows !== viaPrepared.rows) {
      console.error(`${name}: minigraf ${viaPrepared.rows} rows, SQLite ${viaSqlite.rows}`);
    }
    const ratio = viaSqlite.p50_us / viaPrepared.p50_us;
    console.log(
      `${name.padEnd(20)} ${String(viaPrepared.rows).padStart(7)} ${viaText.p50_us.toFixed(1).padStart(10)}` +
        ` ${streamed.p50_us.toFixed(1).padStart(10)} ${viaPrepared.p50_us.toFixed(1).padStart(12)} ${viaSqlite.p50_us.toFixed(1).padStart(10)} ${ratio.toFixed(2).padStart(7)}`,
    );
    console.log(
      JSON.stringify({
        shape: name,
        rows: viaPrepared.rows,
        query_p50_us: viaText.p50_us,
        stream_p50_us: streamed.p50_us,
        prepared_p50_us: viaPrepared.p50_us,
        sqlite_p50_us: viaSqlite.p50_us,
        ratio: Math.round(ratio * 100) / 100,
      }),
    );
    pq.close();
  }
  lite.close();
  db.close();
}

main(process.argv.slice(2));
