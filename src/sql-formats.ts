/** The output formats of `ledger-recon sql` (a light module: `--help` lists them without loading SQLite). */
export type SqlFormat = 'table' | 'csv' | 'json';
export const SQL_FORMATS: readonly SqlFormat[] = ['table', 'csv', 'json'];
