/** SQLite's fragments of the stores' hand-written SQL (see SqlDialect). */
import type { SqlDialect } from '../dialect.js';

export const sqliteDialect: SqlDialect = {
  jsonField: (column, field) => `${column} ->> '$.${field}'`,
  inJsonArray: (column, param) => `${column} IN (SELECT value FROM json_each(${param}))`,
  indexedBy: (index) => `INDEXED BY ${index}`,
  binaryOrder: (column) => column,
  joinInOrder: 'CROSS JOIN',
  idText: 'TEXT',
  notIn: (outer, inner, from, where) =>
    `${outer} NOT IN (SELECT ${inner} FROM ${from}${where ? ` WHERE ${where}` : ''})`,
  temporary: (name) => `temp.${name}`,
  changedJsonKeys: (previous, next) =>
    `(SELECT GROUP_CONCAT(p.key, ', ') FROM json_each(${previous}) p WHERE ${next} IS NOT NULL AND json_extract(${next}, p.fullkey) IS NOT p.value)`,
  // SQLite looks a unique key up through its index whatever the table holds: nothing to say.
  planForNow: { before: '', after: '' },
  insertOrSkip: (table, columns) =>
    `INSERT OR IGNORE INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
};
