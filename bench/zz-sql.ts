import { selectSql } from '../src/nosql/read.js';
import { parseFilter } from '../src/query/filter.js';
import { parseSort } from '../src/query/sort.js';
const scope = { game: 'ne6pkjwzemgdkfgp9pqe', stage: 'preview' as const, collection: 'player' };
const plan = { filter: parseFilter({ level: { $gt: 90 } }), sort: parseSort({ level: -1 }), skip: 0, limit: 20 };
const stmt = selectSql(scope, plan, { afterId: undefined, offset: 0, limit: 20, ordered: true });
let t = stmt.text; stmt.values.forEach((v, i) => { t = t.replaceAll(new RegExp('\\$' + (i + 1) + '(?![0-9])', 'g'), typeof v === 'number' ? String(v) : `'${v}'`); });
console.log(t);
