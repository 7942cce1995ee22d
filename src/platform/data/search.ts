/**
 * Keyword search: a list's `keyword` is a case-insensitive partial match ("contains") over a few
 * folded text columns (`name_key`, `code_key`, … — see `foldText`). Two ways answer it, always with
 * the same rows:
 *
 * - By index, for keywords of at least `INDEXED_KEYWORD_MIN` characters: every searchable table has an
 *   FTS5 table `<table>_search` (trigram tokenizer, drizzle/0012_keyword_search.sql) holding, under
 *   the row's id, exactly the folded text the scan compares, for live rows only; triggers keep it in
 *   step with every write. The keyword, quoted as one FTS5 string, is a phrase of its trigrams, which
 *   matches a column when the column contains the keyword (the tokenizer does not fold case: the
 *   text is folded already, and folding again would find rows the scan does not). The index only
 *   narrows the candidates; the scan's own test still confirms each one, because the tokenizer skips
 *   NUL characters, so a text holding one would otherwise match a keyword across it.
 * - By scan (`instr` over the folded columns), for shorter keywords, which a trigram index cannot
 *   answer, and for keywords with a NUL character, which FTS5 reads as the end of its query.
 *
 * Either way the result is a condition on the base table: the caller's workspace scope
 * (platform/data/scope.ts) still decides whose rows are listed, and ordering, paging and totals stay the
 * list's own.
 *
 * Which one a page uses depends on how many rows the index finds. A few: the page is read from them
 * (each looked up, then sorted). Many (more than `INDEX_DRIVEN_PAGE_MAX`): sorting them all would cost
 * more than walking the list in its order and testing each row with `instr` until the page is full,
 * so the page keeps the scan condition; the total still counts the index's rows, which is cheaper than
 * testing every row of the table.
 */
import { and, sql, type AnyColumn, type Placeholder, type SQL } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { prepared } from '../../db/prepared'

/** A trigram needs three characters; shorter keywords are scanned. */
export const INDEXED_KEYWORD_MIN = 3
/** Above this many matching rows (all workspaces), a page walks the list's order instead. */
export const INDEX_DRIVEN_PAGE_MAX = 1000

export interface SearchIndex {
  /** The FTS5 table: `<table>_search`. */
  readonly name: string
  /** The base table's id, which is the FTS5 rowid. */
  readonly id: AnyColumn
  /** How many rows match `phrase`, counted up to `INDEX_DRIVEN_PAGE_MAX + 1`. */
  readonly probe: (db: Db) => { all(values: { phrase: string }): unknown }
}

export function searchIndex(name: string, id: AnyColumn): SearchIndex {
  const fts = sql.identifier(name)
  const probe = prepared((db) =>
    db
      .select({ n: sql<number>`count(*)` })
      .from(sql`(select 1 from ${fts} where ${fts} match ${sql.placeholder('phrase')} limit ${sql.raw(String(INDEX_DRIVEN_PAGE_MAX + 1))})`)
      .prepare(),
  )
  return { name, id, probe }
}

/** Whether the index answers this (folded) keyword: three characters (code points) or more, no NUL. */
export function isIndexedKeyword(keyword: string): boolean {
  let characters = 0
  for (const _ of keyword) if (++characters >= INDEXED_KEYWORD_MIN) break
  return characters >= INDEXED_KEYWORD_MIN && !keyword.includes('\u0000')
}

/**
 * The keyword as one FTS5 string (double quotes, inner quotes doubled): `a"b`, `AND`, `x*`, `NEAR(`
 * are text to find, never query syntax.
 */
export const ftsPhrase = (keyword: string) => `"${keyword.replaceAll('"', '""')}"`

/** `id IN (rows of the index matching the phrase)`; `phrase` from `ftsPhrase`, or a placeholder bound to one. */
export function matchesIndex(index: SearchIndex, phrase: string | Placeholder): SQL {
  const fts = sql.identifier(index.name)
  return sql`${index.id} in (select rowid from ${fts} where ${fts} match ${phrase})`
}

export type KeywordMethod = 'index' | 'scan'

/** How a list answers a keyword: its page and its total, each by index or by scan. */
export interface KeywordPlan {
  rows: KeywordMethod
  total: KeywordMethod
}

/** Chooses, for this keyword (folded), how the page and the total are found (see the top of this file). */
export async function planKeyword(db: Db, index: SearchIndex, keyword: string): Promise<KeywordPlan> {
  if (!isIndexedKeyword(keyword)) return { rows: 'scan', total: 'scan' }
  const [{ n }] = (await index.probe(db).all({ phrase: ftsPhrase(keyword) })) as { n: number }[]
  return { rows: n > INDEX_DRIVEN_PAGE_MAX ? 'scan' : 'index', total: 'index' }
}

/**
 * The keyword conditions of a list for its page and its total: `scan` (the `instr` test) alone, or the
 * index's candidates confirmed by `scan`, as `planKeyword` chooses.
 */
export async function keywordFilters(db: Db, index: SearchIndex, keyword: string, scan: SQL): Promise<{ rows: SQL; total: SQL }> {
  const plan = await planKeyword(db, index, keyword)
  const condition = (method: KeywordMethod) => (method === 'index' ? and(matchesIndex(index, ftsPhrase(keyword)), scan)! : scan)
  return { rows: condition(plan.rows), total: condition(plan.total) }
}
