import { defineConfig } from 'drizzle-kit';

/**
 * drizzle-kit generates the PostgreSQL mirror's migrations into drizzle/pg/, from the schema
 * derived from the SQLite one (src/db/pg/schema.ts). Views are a migration written by hand
 * (`drizzle-kit generate --custom`), as for SQLite.
 */
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/db/pg/schema.ts',
  out: './drizzle/pg',
});
