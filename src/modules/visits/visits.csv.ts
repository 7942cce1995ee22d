/**
 * Visits in and out of spreadsheets.
 *
 * Import (`text/csv`, header row required): one visit per row, columns
 *   outlet_code | outlet_id, project_code | project_id, visit_date (YYYY-MM-DD),
 *   team_name | team_id (optional), assignee_emails | user_ids (optional, separated by `;`), notes.
 * Codes, names and emails are resolved in the caller's workspace. Every row is checked before
 * anything is written and errors name the CSV line (`rows.<line>.<column>`, the header is line 1);
 * one bad row imports nothing. Then the visits are written in parts (createVisits).
 *
 * Export: the office list's filters, streamed in pages of 500 rows so a large export never sits in
 * memory. Cells that a spreadsheet would run as a formula are prefixed with `'` (`guardCell`).
 *
 * An export imports again as is: the import takes off exactly that guard (`unguardCell`) before it
 * matches names, codes and emails, so "@Tim Timur", exported as "'@Tim Timur", finds its team.
 * The format is documented in docs/API.md ("Visit CSV import and export").
 */
import { parse } from 'csv-parse'
import { stringify } from 'csv-stringify/sync'
import { and, eq, gt, inArray, isNull, sql } from 'drizzle-orm'
import { memberships, outlets, projects, teams, users, visitAssignees, visits } from '../../db/schema'
import type { AuthedContext } from '../../platform/context'
import { isCalendarDate } from '../../lib/dates'
import { localDate } from '../../lib/time-zones'
import { ValidationFailed } from '../../lib/errors'
import { foldText } from '../../platform/data/pagination'
import { outletScope } from '../outlets'
import { projectScope } from '../projects'
import { teamScope } from '../teams'
import { membershipScope } from '../users'
import { createVisits } from './visits.service'
import { visitFilters } from './visits.queries'
import type { CreateVisitInput, VisitListQuery } from './visits.schemas'

export const IMPORT_MAX_ROWS = 5000
const EXPORT_PAGE = 500

type Row = Record<string, string>

/**
 * The formula guard, a pair that undo each other for every text. A cell starting with a character
 * a spreadsheet reads as a formula (`=`, `+`, `-`, `@`, tab, CR) gets one `'` in front; so does a
 * cell that starts with `'`s before such a character ("'=x" → "''=x"), so that the import, which
 * takes off one `'` only where `'`s are followed by such a character, gives every text back as it
 * was. A text that merely starts with `'` ("'quoted") is neither guarded nor changed.
 */
const GUARDED = /^'*[=+\-@\t\r]/
const GUARD_ON_IMPORT = /^'+[=+\-@\t\r]/

export function guardCell(text: string): string {
  return GUARDED.test(text) ? `'${text}` : text
}

export function unguardCell(text: string): string {
  return GUARD_ON_IMPORT.test(text) ? text.slice(1) : text
}

/** Text fed to the parser at a time; the event loop serves other requests between slices. */
const PARSE_SLICE_CHARS = 32 * 1024

/**
 * The rows of an import, parsed in slices (cut after a line break, so no character is split) with a
 * turn of the event loop between them: a large file parsed in one call holds the one thread, and every
 * other workspace's requests wait behind it (the write-lock rule, docs/PERFORMANCE.md).
 */
async function readCsv(text: string, maxRows: number): Promise<Row[]> {
  const rows: Row[] = []
  const parser = parse({
    columns: (header: string[]) => header.map((name) => name.trim().toLowerCase()),
    skip_empty_lines: true,
    trim: true,
    bom: true,
  })
  let failure: Error | null = null
  parser.on('readable', () => {
    for (let row = parser.read(); row !== null; row = parser.read()) rows.push(row as Row)
  })
  parser.on('error', (error) => {
    failure ??= error
  })
  const ended = new Promise<void>((resolve) => parser.on('close', resolve))
  for (let at = 0; at < text.length && !failure; ) {
    if (rows.length > maxRows) throw ValidationFailed.field('csv', `has more than ${maxRows} rows`)
    const cut = text.indexOf('\n', at + PARSE_SLICE_CHARS)
    const end = cut === -1 ? text.length : cut + 1
    parser.write(text.slice(at, end))
    at = end
    await new Promise((resolve) => setImmediate(resolve))
  }
  parser.end()
  await ended
  if (failure) throw ValidationFailed.field('csv', `is not valid CSV: ${(failure as Error).message}`)
  for (const row of rows) for (const column of Object.keys(row)) row[column] = unguardCell(row[column])
  return rows
}

const list = (value: string | undefined) =>
  (value ?? '')
    .split(/[;|]/)
    .map((part) => part.trim())
    .filter(Boolean)

const positiveInt = (value: string) => (/^\d{1,15}$/.test(value) && Number(value) > 0 ? Number(value) : null)

export async function importVisits(ctx: AuthedContext, text: string) {
  const rows = await readCsv(text, IMPORT_MAX_ROWS)
  if (rows.length === 0) throw ValidationFailed.field('csv', 'has no data rows')
  if (rows.length > IMPORT_MAX_ROWS) throw ValidationFailed.field('csv', `has more than ${IMPORT_MAX_ROWS} rows`)
  const lookups = await lookupsOf(ctx, rows)
  const errors: Record<string, string[]> = {}
  // The header is line 1.
  const items = rows.map((row, position) => itemOf(row, position + 2, lookups, errors))
  if (Object.keys(errors).length) throw new ValidationFailed(errors)
  const ids = await createVisits(
    ctx,
    items.map((item) => ({ ...item, source: 'import' as const })),
    (index) => `rows.${index + 2}.`,
  )
  return { count: ids.length, ids }
}

/** Distinct folded values of a column, as the stored keys spell them. */
const foldedOf = (rows: Row[], column: string) => [
  ...new Set(
    rows
      .map((row) => row[column])
      .filter(Boolean)
      .map(foldText),
  ),
]

/** The ids behind the codes, team names and emails the rows name, in the caller's workspace: one query each. */
async function lookupsOf(ctx: AuthedContext, rows: Row[]) {
  const db = ctx.deps.db.read
  const workspaceId = ctx.actor.workspaceId
  const outletCodes = foldedOf(rows, 'outlet_code')
  const projectCodes = foldedOf(rows, 'project_code')
  const teamNames = foldedOf(rows, 'team_name')
  const emails = [...new Set(rows.flatMap((row) => list(row.assignee_emails)).map((email) => email.toLowerCase()))]
  const [outletRows, projectRows, teamRows, userRows] = await Promise.all([
    outletScope.findManyBy(db, workspaceId, outlets.code_key, outletCodes),
    projectScope.findManyBy(db, workspaceId, projects.code_key, projectCodes),
    teamScope.findManyBy(db, workspaceId, teams.name_key, teamNames),
    emails.length
      ? db
          .select({ id: users.id, key: users.email })
          .from(users)
          .innerJoin(memberships, membershipScope.where(workspaceId, eq(memberships.user_id, users.id)))
          .where(and(isNull(users.deleted_at), inArray(users.email, emails)))
      : [],
  ])
  const index = (entries: { id: number; key: string | null }[]) => new Map(entries.map((entry) => [entry.key!, entry.id]))
  const byKey = <R extends { id: number }>(rows: R[], key: (row: R) => string | null) => index(rows.map((row) => ({ id: row.id, key: key(row) })))
  return {
    outletByCode: byKey(outletRows, (row) => row.code_key),
    projectByCode: byKey(projectRows, (row) => row.code_key),
    teamByName: byKey(teamRows, (row) => row.name_key),
    userByEmail: index(userRows),
  }
}

/** One row as a create input; what is wrong with it is noted in `errors` under `rows.<line>.<column>`. */
function itemOf(row: Row, line: number, lookups: Awaited<ReturnType<typeof lookupsOf>>, errors: Record<string, string[]>): CreateVisitInput {
  const at = (column: string, message: string) => {
    errors[`rows.${line}.${column}`] ??= [message]
  }
  /** Notes the error and gives the value that stands in for the bad one (the row is never written). */
  const invalid = <T>(column: string, message: string, placeholder: T): T => {
    at(column, message)
    return placeholder
  }
  const resolve = (idColumn: string, codeColumn: string, lookup: Map<string, number>, what: string) => {
    if (row[idColumn]) return positiveInt(row[idColumn]) ?? invalid(idColumn, 'must be a positive integer', 0)
    if (row[codeColumn]) return lookup.get(foldText(row[codeColumn])) ?? invalid(codeColumn, `no ${what} with this ${codeColumn.split('_')[1]}`, 0)
    return invalid(codeColumn, `${codeColumn} or ${idColumn} is required`, 0)
  }
  const outlet_id = resolve('outlet_id', 'outlet_code', lookups.outletByCode, 'outlet')
  const project_id = resolve('project_id', 'project_code', lookups.projectByCode, 'project')
  let team_id: number | null = null
  if (row.team_id) team_id = positiveInt(row.team_id) ?? invalid('team_id', 'must be a positive integer', null)
  else if (row.team_name) team_id = lookups.teamByName.get(foldText(row.team_name)) ?? invalid('team_name', 'no team with this name', null)
  const visit_date = row.visit_date ?? ''
  if (!isCalendarDate(visit_date)) at('visit_date', 'must be a date (YYYY-MM-DD)')
  const user_ids: number[] = []
  for (const email of list(row.assignee_emails)) {
    const id = lookups.userByEmail.get(email.toLowerCase())
    if (id === undefined) at('assignee_emails', `no user with email ${email}`)
    else user_ids.push(id)
  }
  for (const value of list(row.user_ids)) {
    const id = positiveInt(value)
    if (id === null) at('user_ids', 'must be positive integers separated by ;')
    else user_ids.push(id)
  }
  return { outlet_id, project_id, team_id, visit_date, user_ids: [...new Set(user_ids)], notes: row.notes?.slice(0, 2000) || null }
}

const EXPORT_COLUMNS = [
  'id',
  'visit_date',
  'status',
  'outlet_id',
  'outlet_code',
  'outlet_name',
  'project_id',
  'project_name',
  'team_name',
  'assignees',
  'assignee_emails',
  'checked_in_at',
  'checked_out_at',
  'submissions_completed',
  'submissions_total',
  'sent_to_field_at',
  'created_at',
]

/** Keeps spreadsheets from running cell text as a formula (CSV injection). */
const safeCell = (value: unknown) => (value === null || value === undefined ? '' : guardCell(String(value)))

export function exportVisits(ctx: AuthedContext, query: VisitListQuery) {
  const db = ctx.deps.db.read
  const where = visitFilters(ctx, query, { mine: false })
  let afterId = 0
  let headerSent = false
  const encoder = new TextEncoder()

  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const page = await db
        .select({
          id: visits.id,
          visit_date: visits.visit_date,
          status: visits.status,
          outlet_id: visits.outlet_id,
          outlet_code: outlets.code,
          outlet_name: outlets.name,
          project_id: visits.project_id,
          project_name: projects.name,
          team_name: teams.name,
          checked_in_at: visits.checked_in_at,
          checked_out_at: visits.checked_out_at,
          submissions_completed: sql<number>`(select count(*) from submissions s where s.visit_id = ${visits.id} and s.deleted_at is null and s.status = 'completed')`,
          submissions_total: sql<number>`(select count(*) from submissions s where s.visit_id = ${visits.id} and s.deleted_at is null)`,
          sent_to_field_at: visits.sent_to_field_at,
          created_at: visits.created_at,
        })
        .from(visits)
        .innerJoin(outlets, eq(outlets.id, visits.outlet_id))
        .innerJoin(projects, eq(projects.id, visits.project_id))
        .leftJoin(teams, eq(teams.id, visits.team_id))
        .where(and(where, gt(visits.id, afterId)))
        .orderBy(visits.id)
        .limit(EXPORT_PAGE)
      const assignees = page.length
        ? await db
            .select({ visit_id: visitAssignees.visit_id, name: users.name, email: users.email })
            .from(visitAssignees)
            .innerJoin(users, eq(users.id, visitAssignees.user_id))
            .where(
              inArray(
                visitAssignees.visit_id,
                page.map((row) => row.id),
              ),
            )
        : []
      const records = page.map((row) => {
        const mine = assignees.filter((a) => a.visit_id === row.id)
        const record: Record<string, unknown> = {
          ...row,
          assignees: mine.map((a) => a.name).join('; '),
          assignee_emails: mine.map((a) => a.email).join('; '),
        }
        return EXPORT_COLUMNS.map((column) => safeCell(record[column]))
      })
      controller.enqueue(encoder.encode(stringify(records, { header: !headerSent, columns: EXPORT_COLUMNS })))
      headerSent = true
      if (page.length < EXPORT_PAGE) controller.close()
      else afterId = page[page.length - 1].id
    },
  })
  return new Response(stream, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="visits-${localDate(ctx.deps.clock.now(), ctx.actor.timeZone)}.csv"`,
      'cache-control': 'no-store',
    },
  })
}
