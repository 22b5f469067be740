/** PostgreSQL's fragments of the stores' hand-written SQL (see SqlDialect). */
import type { SqlDialect } from '../dialect.js';

export const pgDialect: SqlDialect = {
  // json, not jsonb: a number's literal comes back as the service wrote it.
  jsonField: (column, field) => `(${column})::json ->> '${field}'`,
  inJsonArray: (column, param) => `${column} IN (SELECT json_array_elements_text(CAST(${param} AS json)))`,
  indexedBy: () => '',
  binaryOrder: (column) => `${column} COLLATE "C"`,
  joinInOrder: 'JOIN',
  idText: 'text COLLATE "C"',
  notIn: (outer, inner, from, where) =>
    `NOT EXISTS (SELECT 1 FROM ${from} WHERE ${where ? `${where} AND ` : ''}${inner} = ${outer})`,
  temporary: (name) => `pg_temp.${name}`,
  changedJsonKeys: (previous, next) =>
    `(SELECT string_agg(p.key, ', ') FROM json_each((${previous})::json) p WHERE ${next} IS NOT NULL AND ((${next})::jsonb -> p.key) IS DISTINCT FROM p.value::jsonb)`,
  insertOrSkip: (table, columns) =>
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) ON CONFLICT DO NOTHING`,
  planForNow: { before: 'SET LOCAL plan_cache_mode = force_custom_plan', after: 'SET LOCAL plan_cache_mode = auto' },
};
