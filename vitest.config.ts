import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // One PostgreSQL server for the run: the tests' second backend (test/support/postgres.ts).
    globalSetup: ['test/support/postgres-setup.ts'],
  },
});
