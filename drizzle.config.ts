import { defineConfig } from 'drizzle-kit';

/** drizzle-kit generates the mirror's migrations from the schema into drizzle/. */
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema.ts',
  out: './drizzle',
  dbCredentials: { url: process.env.LEDGER_RECON_DB ?? 'data/ledger.db' },
});
