/**
 * What installing the derived database objects (src/db/derived.ts) costs at start, on both drivers:
 * on an unchanged database (the usual start: one read of sqlite_master and a text comparison), and a
 * full install after every owned trigger and FTS table was dropped (creates them all and refills the
 * FTS tables from their base tables).
 *
 *   bun scripts/derived-install.ts [DATABASE_FILE]
 *
 * Without a file it measures a freshly migrated, empty database; with one (e.g. a demo database from
 * `npm run seed:demo`) it works on a copy of it.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'drizzle-orm'
import { loadConfig } from '../src/config/env'
import { openDatabase } from '../src/db/client'
import { installDerived } from '../src/db/derived'
import { derivedObjects } from '../src/modules/index'

const source = process.argv[2]
const ROUNDS = 50
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]

for (const driver of ['bun-sqlite', 'libsql'] as const) {
  const dir = mkdtempSync(join(tmpdir(), 'ffos-derived-bench-'))
  const file = join(dir, 'app.db')
  if (source) copyFileSync(source, file)
  const db = await openDatabase(loadConfig({ DATABASE_URL: `file:${file}`, DATABASE_DRIVER: driver }))
  await db.migrate()
  const objects = derivedObjects()
  const unchanged: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now()
    const ran = await installDerived(db, objects)
    unchanged.push(performance.now() - started)
    if (ran.length) throw new Error(`expected nothing to install, ran ${ran.length} statements`)
  }
  await db.transaction(async (tx) => {
    for (const object of objects) await tx.run(sql.raw(`DROP ${object.kind === 'fts' ? 'TABLE' : 'TRIGGER'} \`${object.name}\``))
  })
  const started = performance.now()
  const ran = await installDerived(db, objects)
  const full = performance.now() - started
  console.log(
    `${driver}: unchanged database median ${median(unchanged).toFixed(2)} ms (max ${Math.max(...unchanged).toFixed(2)} ms, ${ROUNDS} runs); ` +
      `full install ${full.toFixed(0)} ms (${ran.length} statements)`,
  )
  await db.close()
  rmSync(dir, { recursive: true, force: true })
}
