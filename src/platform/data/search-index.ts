/**
 * The keyword-search indexes (./search.ts), generated from the modules' `searchIndex` declarations
 * (./manifest.ts): per searchable table, a contentless FTS5 table `<table>_search` keyed by the base
 * table's rowid, holding exactly the folded text the list's keyword scan compares, for live rows only,
 * and three triggers that keep it in step with every insert, update, soft delete, restore and delete,
 * whoever writes (docs/PERFORMANCE.md, "Keyword search (FTS5 trigram)"). The tokenizer is
 * case-sensitive on purpose: the columns are already folded (NFKC + lower-case, or SQLite's lower()
 * for user names), and folding again would match rows the scan does not.
 *
 * `searchObjects` is a pure function: declarations → statements worded exactly as SQLite keeps them in
 * `sqlite_master` (those of migration 0012; tests/derived.test.ts holds the two sets equal).
 */
import type { DerivedObject } from '../../db/derived'

export interface SearchIndexDeclaration {
  /** The base table (it has `id` and `deleted_at`); the FTS table is `<table>_search`. */
  table: string
  /** The folded columns, in FTS column order: a column name, or `{ column, lower: true }` for one folded by SQLite's lower(). */
  columns: readonly (string | { column: string; lower: true })[]
}

const q = (name: string) => `\`${name}\``

export function searchObjects(indexes: readonly SearchIndexDeclaration[]): DerivedObject[] {
  return indexes.flatMap(({ table, columns }) => {
    const fts = `${table}_search`
    const names = columns.map((column) => (typeof column === 'string' ? column : column.column))
    const value = (row: string) =>
      columns.map((column) => (typeof column === 'string' ? `${row}.${q(column)}` : `lower(${row}.${q(column.column)})`)).join(', ')
    const into = `INSERT INTO ${q(fts)} (rowid, ${names.map(q).join(', ')})`
    const on = (event: string, name: string, when: string, body: string[]): DerivedObject => ({
      kind: 'trigger',
      name: `${fts}_${name}`,
      table,
      sql: `CREATE TRIGGER ${q(`${fts}_${name}`)} AFTER ${event} ON ${q(table)}\nWHEN ${when}\nBEGIN\n${body.map((line) => `  ${line}`).join('\n')}\nEND`,
    })
    const differs = columns
      .map((column) =>
        typeof column === 'string' ? `OLD.${q(column)} IS NOT NEW.${q(column)}` : `lower(OLD.${q(column.column)}) IS NOT lower(NEW.${q(column.column)})`,
      )
      .join(' OR ')
    return [
      {
        kind: 'fts',
        name: fts,
        table: fts,
        sql: `CREATE VIRTUAL TABLE ${q(fts)} USING fts5(${names.map(q).join(', ')}, tokenize = 'trigram case_sensitive 1', content = '', contentless_delete = 1)`,
        fill: `${into} SELECT ${q('id')}, ${value(q(table))} FROM ${q(table)} WHERE ${q('deleted_at')} IS NULL`,
      },
      on('INSERT', 'insert', 'NEW.`deleted_at` IS NULL', [`${into} VALUES (NEW.${q('id')}, ${value('NEW')});`]),
      on(
        `UPDATE OF ${['id', ...names, 'deleted_at'].map(q).join(', ')}`,
        'update',
        `OLD.\`id\` IS NOT NEW.\`id\` OR (OLD.\`deleted_at\` IS NULL) IS NOT (NEW.\`deleted_at\` IS NULL) OR ${differs}`,
        [
          `DELETE FROM ${q(fts)} WHERE OLD.\`deleted_at\` IS NULL AND rowid = OLD.\`id\`;`,
          `${into} SELECT NEW.\`id\`, ${value('NEW')} WHERE NEW.\`deleted_at\` IS NULL;`,
        ],
      ),
      on('DELETE', 'delete', 'OLD.`deleted_at` IS NULL', [`DELETE FROM ${q(fts)} WHERE rowid = OLD.\`id\`;`]),
    ]
  })
}
