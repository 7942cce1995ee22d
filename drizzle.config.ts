import { defineConfig } from 'drizzle-kit'

// `npm run db:generate` turns changes of src/db/schema into a new SQL migration in drizzle/.
export default defineConfig({
  dialect: 'sqlite',
  schema: './src/db/schema/index.ts',
  out: './drizzle',
})
