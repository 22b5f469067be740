/**
 * The mirror's schema for PostgreSQL, derived from the one schema (src/db/schema.ts): the same
 * tables, columns, keys and indexes, each column its PostgreSQL type of the same meaning. An
 * integer is a bigint (epoch milliseconds and cents outgrow 32 bits), a row ID an identity, a
 * flag a boolean, a rate a double, text ordered byte by byte (SQLite's BINARY). drizzle-kit reads this file to write the PostgreSQL
 * migrations (drizzle/pg/); nothing is declared twice. test/db/pg-schema.test.ts compares both
 * migrated schemas.
 */
import { getTableColumns, type AnyColumn, type Table } from 'drizzle-orm';
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  foreignKey,
  index,
  pgTable,
  primaryKey,
  uniqueIndex,
  type PgColumnBuilderBase,
  type PgTable,
} from 'drizzle-orm/pg-core';
import { getTableConfig, type SQLiteColumn, type SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as sqlite from '../schema.js';

/**
 * Text compared byte by byte, as SQLite's BINARY collation and JavaScript compare it (IDs,
 * codes, references): an ordered walk by card ID agrees with the code that merges it, whatever
 * the database's locale, and the index on it serves that order.
 */
const text = customType<{ data: string }>({ dataType: () => 'text COLLATE "C"' });

/** A SQLite column as a PostgreSQL column builder of the same meaning. */
function columnOf(column: SQLiteColumn, soleKey: boolean): PgColumnBuilderBase {
  const name = column.name;
  let built;
  switch (column.columnType) {
    case 'SQLiteInteger':
      built = bigint(name, { mode: 'number' });
      // A row ID the database numbers (SQLite's INTEGER PRIMARY KEY): an identity, which takes a given value too.
      if (soleKey) built = built.generatedByDefaultAsIdentity();
      break;
    case 'SQLiteBoolean':
      built = boolean(name);
      break;
    case 'SQLiteReal':
      built = doublePrecision(name);
      break;
    case 'SQLiteText':
      built = text(name);
      break;
    default:
      throw new Error(`no PostgreSQL type for ${column.columnType} (${name})`);
  }
  if (column.notNull) built = built.notNull();
  if (column.primary) built = built.primaryKey();
  if (column.hasDefault && column.default !== undefined) built = built.default(column.default as never);
  return built;
}

/** The tables made so far, by name: a foreign key refers to a table made before it. */
const made = new Map<string, PgTable>();

/** A SQLite table of the schema as the same PostgreSQL table. */
function pgTableOf<T extends SQLiteTable>(table: T) {
  const config = getTableConfig(table);
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const soleKey = (column: SQLiteColumn) => column.primary && column.columnType === 'SQLiteInteger';
  const builders = Object.fromEntries(
    Object.entries(columns).map(([key, column]) => [key, columnOf(column, soleKey(column))]),
  );
  const keyOf = new Map(Object.entries(columns).map(([key, column]) => [column.name, key]));
  const pg = pgTable(config.name, builders, (t) => {
    const col = (column: AnyColumn | SQLiteColumn) => (t as Record<string, never>)[keyOf.get(column.name) ?? ''];
    return [
      ...config.foreignKeys.map((key) => {
        const { columns: from, foreignColumns } = key.reference();
        const target = made.get(getTableConfig(foreignColumns[0]?.table as SQLiteTable).name);
        if (target === undefined) throw new Error(`${config.name} refers to a table not made before it`);
        const targetColumns = Object.values(getTableColumns(target) as Record<string, AnyColumn>);
        const to = foreignColumns.map((column) => targetColumns.find((c) => c.name === column.name));
        const built = foreignKey({
          columns: from.map(col) as [never, ...never[]],
          foreignColumns: to as [never, ...never[]],
        });
        return key.onDelete === 'cascade' ? built.onDelete('cascade') : built;
      }),
      ...config.primaryKeys.map((key) => primaryKey({ columns: key.columns.map(col) as [never, ...never[]] })),
      ...config.indexes.map((built) => {
        const { name, columns: on, unique } = built.config;
        const make = unique ? uniqueIndex(name) : index(name);
        return make.on(...(on.map((column) => col(column as SQLiteColumn)) as [never, ...never[]]));
      }),
    ];
  });
  made.set(config.name, pg);
  return pg;
}

export const syncRuns = pgTableOf(sqlite.syncRuns);
export const mirrorIdentity = pgTableOf(sqlite.mirrorIdentity);
export const syncCheckpoints = pgTableOf(sqlite.syncCheckpoints);
export const quarantine = pgTableOf(sqlite.quarantine);
export const quarantineSightings = pgTableOf(sqlite.quarantineSightings);
export const giftCards = pgTableOf(sqlite.giftCards);
export const giftCardHistory = pgTableOf(sqlite.giftCardHistory);
export const missingGiftCards = pgTableOf(sqlite.missingGiftCards);
export const listedNotFound = pgTableOf(sqlite.listedNotFound);
export const populationLeaves = pgTableOf(sqlite.populationLeaves);
export const giftCardsInFlight = pgTableOf(sqlite.giftCardsInFlight);
export const giftCardTransactions = pgTableOf(sqlite.giftCardTransactions);
export const ledgerWalkSeen = pgTableOf(sqlite.ledgerWalkSeen);
export const giftCardTransactionVersions = pgTableOf(sqlite.giftCardTransactionVersions);
export const coupons = pgTableOf(sqlite.coupons);
export const couponHistory = pgTableOf(sqlite.couponHistory);
export const couponVersions = pgTableOf(sqlite.couponVersions);
export const dpWalletSnapshots = pgTableOf(sqlite.dpWalletSnapshots);
export const dpProducts = pgTableOf(sqlite.dpProducts);
export const dpVariants = pgTableOf(sqlite.dpVariants);
export const dpOrders = pgTableOf(sqlite.dpOrders);
export const dpOrderLines = pgTableOf(sqlite.dpOrderLines);
export const dpVouchers = pgTableOf(sqlite.dpVouchers);
export const dpOrderHistory = pgTableOf(sqlite.dpOrderHistory);
export const dpOrderVersions = pgTableOf(sqlite.dpOrderVersions);
export const checkRuns = pgTableOf(sqlite.checkRuns);
export const checkRunRereads = pgTableOf(sqlite.checkRunRereads);
export const checkRunCardSums = pgTableOf(sqlite.checkRunCardSums);
export const findings = pgTableOf(sqlite.findings);
export const heldFindings = pgTableOf(sqlite.heldFindings);
export const resolvedFindings = pgTableOf(sqlite.resolvedFindings);
export const findingAcceptances = pgTableOf(sqlite.findingAcceptances);
export const findingAcceptanceHistory = pgTableOf(sqlite.findingAcceptanceHistory);
export const liabilityVintages = pgTableOf(sqlite.liabilityVintages);
export const liabilityBands = pgTableOf(sqlite.liabilityBands);
export const liabilityRollforward = pgTableOf(sqlite.liabilityRollforward);
export const evidenceManifests = pgTableOf(sqlite.evidenceManifests);
export const booksFiles = pgTableOf(sqlite.booksFiles);
export const booksRows = pgTableOf(sqlite.booksRows);
export const booksRowChanges = pgTableOf(sqlite.booksRowChanges);
export const booksRejections = pgTableOf(sqlite.booksRejections);
export const booksMatchRows = pgTableOf(sqlite.booksMatchRows);

/** Every table of the schema, for a test that no table of it is left out here. */
export const PG_TABLES: readonly Table[] = [
  syncRuns,
  mirrorIdentity,
  syncCheckpoints,
  quarantine,
  quarantineSightings,
  giftCards,
  giftCardHistory,
  missingGiftCards,
  listedNotFound,
  populationLeaves,
  giftCardsInFlight,
  giftCardTransactions,
  ledgerWalkSeen,
  giftCardTransactionVersions,
  coupons,
  couponHistory,
  dpWalletSnapshots,
  dpProducts,
  dpVariants,
  dpOrders,
  dpOrderLines,
  dpVouchers,
  dpOrderHistory,
  checkRuns,
  checkRunRereads,
  checkRunCardSums,
  findings,
  heldFindings,
  resolvedFindings,
  findingAcceptances,
  findingAcceptanceHistory,
  liabilityVintages,
  liabilityBands,
  liabilityRollforward,
  evidenceManifests,
  booksFiles,
  booksRows,
  booksRowChanges,
  booksRejections,
  booksMatchRows,
];
