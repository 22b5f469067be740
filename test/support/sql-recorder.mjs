/**
 * Loaded with `node --import` into a real CLI process by test/db/row-types.test.ts: every read
 * statement the mirror's driver prepares or runs is written to the file
 * LEDGER_RECON_SQL_RECORD names, one JSON line each, with the names of the columns the
 * database says it yields: on SQLite when better-sqlite3 prepares it, on PostgreSQL when
 * node-postgres hands back a query's result (its fields, even for no rows). The drivers' own
 * methods are wrapped, not ours; each returns what it returned before, untouched.
 */
import { appendFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const file = process.env.LEDGER_RECON_SQL_RECORD;
const seen = new Set();

function record(backend, sql, columns) {
  const key = `${backend} ${sql}`;
  if (!file || seen.has(key)) return;
  seen.add(key);
  appendFileSync(file, `${JSON.stringify({ backend, sql, columns })}\n`);
}

const Database = require('better-sqlite3');
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  if (statement.reader)
    record(
      'sqlite',
      sql,
      statement.columns().map((c) => c.name),
    );
  return statement;
};

const { Client } = require('pg');
const query = Client.prototype.query;
Client.prototype.query = function (config, ...rest) {
  const result = query.call(this, config, ...rest);
  const text = typeof config === 'string' ? config : config?.text;
  if (typeof text === 'string' && typeof result?.then === 'function')
    result.then(
      (r) =>
        Array.isArray(r?.fields) &&
        r.fields.length > 0 &&
        record(
          'postgres',
          text,
          r.fields.map((f) => f.name),
        ),
      () => {},
    );
  return result;
};
