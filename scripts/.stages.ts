import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
const rss = (label: string) => { const s = require('node:fs').readFileSync('/proc/self/status','utf8'); const g=(k:string)=>Math.round(Number(new RegExp(k+':\\s+(\\d+)').exec(s)![1])/1024); console.log(label, 'rss', g('VmRSS'), 'hwm', g('VmHWM'), 'heap', Math.round(process.memoryUsage().heapUsed/1048576)) }
rss('bare')
const dir = mkdtempSync(join(tmpdir(), 'st-'))
process.env.DATABASE_URL = `file:${join(dir,'app.db')}`
process.env.UPLOAD_DIR = join(dir,'u'); process.env.EXPORT_DIR = join(dir,'e'); process.env.LOG_LEVEL='warn'
const { loadConfig } = await import('../src/config/env')
const { openDatabase } = await import('../src/db/client')
const { createApp } = await import('../src/app')
const { loadRegionalData } = await import('../src/modules/regional')
rss('imported')
const config = loadConfig()
const db = await openDatabase(config)
rss('opened')
await db.migrate()
rss('migrated')
const { app, deps } = await createApp({ db, config })
rss('app')
if (!process.env.NOREGIONAL) await loadRegionalData(db, deps.logger)
rss('regional')
Bun.gc(true)
rss('gc')
await db.pragma('PRAGMA shrink_memory')
rss('shrink writer')
const rows = await db.pragmaEverywhere('PRAGMA cache_size')
console.log(JSON.stringify(rows))
await db.close(); rss('closed')
