import { defineConfig } from 'drizzle-kit';

// Generates SQL migrations from the schema: `bun run db:generate`. Read every generated file before committing.
export default defineConfig({
  dialect: 'sqlite',
  schema: './db/schema/index.ts',
  out: './db/migrations',
});
